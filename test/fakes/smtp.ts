/**
 * A real SMTP server on loopback (the `smtp-server` package) for e-mail delivery tests: STARTTLS
 * or implicit TLS with the test CA's certificate, AUTH PLAIN/LOGIN checked against one user,
 * recipients it refuses (550) or defers (451), and every accepted message kept raw and parsed
 * with `mailparser`. stop() takes the relay down; start() brings it back on the same port.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const CERT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '.test-certs');

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
  /** The connection was encrypted (STARTTLS or implicit TLS). */
  secure: boolean;
  user: string | null;
}

export interface SmtpFakeOptions {
  secure?: boolean;
  /** Count messages without keeping or parsing them (benchmarks). */
  countOnly?: boolean;
  user?: string;
  pass?: string;
  /** XOAUTH2 only (as Microsoft 365 once basic authentication is off): the token each AUTH carries is judged by `accepts`. */
  oauth?: { accepts: (user: string, accessToken: string) => boolean };
}

export class SmtpFake {
  readonly mails: ReceivedMail[] = [];
  /** Recipients answered 550 at RCPT TO (permanent) and 451 (temporary). */
  readonly refuse = new Set<string>();
  readonly defer = new Set<string>();
  authFailures = 0;
  /** The access tokens AUTH XOAUTH2 carried, in order (oauth mode). */
  readonly accessTokens: string[] = [];
  /** Messages accepted (also in countOnly mode). */
  count = 0;
  port = 0;
  private server: SMTPServer | null = null;
  private waiters: { n: number; resolve: () => void }[] = [];

  constructor(private readonly opts: SmtpFakeOptions = {}) {}

  /** smtp:// or smtps:// URL of this server with its credentials. */
  url(pass = this.opts.pass): string {
    const auth = this.opts.user ? `${encodeURIComponent(this.opts.user)}:${encodeURIComponent(pass ?? '')}@` : '';
    return `${this.opts.secure ? 'smtps' : 'smtp'}://${auth}localhost:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      secure: this.opts.secure === true,
      key: readFileSync(path.join(CERT_DIR, 'server.key')),
      cert: readFileSync(path.join(CERT_DIR, 'server.crt')),
      authOptional: !this.opts.user && !this.opts.oauth,
      authMethods: this.opts.oauth ? ['XOAUTH2'] : ['PLAIN', 'LOGIN'],
      logger: false,
      onAuth: (auth, _session, cb) => {
        if (this.opts.oauth) {
          this.accessTokens.push(auth.accessToken ?? '');
          if (auth.method === 'XOAUTH2' && this.opts.oauth.accepts(auth.username ?? '', auth.accessToken ?? '')) return cb(null, { user: auth.username });
          this.authFailures += 1;
          // As the big relays answer a bad token: a 334 carrying the error (base64 JSON), then 535 after the client's empty line.
          return cb(null, { data: { status: '401', schemes: 'bearer', scope: 'https://outlook.office.com/SMTP.Send' } });
        }
        if (auth.username === this.opts.user && auth.password === this.opts.pass) return cb(null, { user: auth.username });
        this.authFailures += 1;
        cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
      },
      onRcptTo: (address, _session, cb) => {
        if (this.refuse.has(address.address)) return cb(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
        if (this.defer.has(address.address)) return cb(Object.assign(new Error('4.2.1 try again later'), { responseCode: 451 }));
        cb();
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.count += 1;
          if (this.opts.countOnly) return cb();
          const raw = Buffer.concat(chunks).toString('utf8');
          void simpleParser(raw).then((parsed) => {
            this.mails.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
              secure: session.secure,
              user: (session.user as string | undefined) ?? null,
            });
            this.waiters = this.waiters.filter((w) => (this.mails.length >= w.n ? (w.resolve(), false) : true));
            cb();
          }, cb);
        });
      },
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as { port: number }).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves when at least n messages were received. */
  waitFor(n: number, timeoutMs = 15_000): Promise<ReceivedMail[]> {
    if (this.mails.length >= n) return Promise.resolve(this.mails);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`SMTP fake: ${this.mails.length} of ${n} messages`)), timeoutMs);
      this.waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(this.mails)) });
    });
  }

  clear(): void {
    this.mails.length = 0;
  }
}
