/**
 * `vigia listen` (CONTRACT §6): a local HTTPS receiver that verifies each delivery with
 * verifyWebhook, prints it, and answers as SPEC §5.1 rule 5 says — 2xx accepted, 400 stale
 * timestamp, 401 bad signature. Duplicates (same Idempotency-Key) are accepted and marked.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { verifyWebhook, WebhookVerificationError } from './verify.js';
import { makeSelfSignedCert } from './self-signed.js';

export interface ListenOptions {
  secret: string;
  port?: string | number;
  host?: string;
  cert?: string;
  key?: string;
  /** Where lines are printed (default stdout). */
  out?: (line: string) => void;
}

const MAX_BODY = 4 * 1024 * 1024;

export async function startListener(opts: ListenOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  if (!opts.secret?.startsWith('whsec_')) throw new Error('--secret must be the destination signing secret (whsec_…)');
  if (Boolean(opts.cert) !== Boolean(opts.key)) throw new Error('--cert and --key go together');
  const tls = opts.cert && opts.key ? { cert: readFileSync(opts.cert, 'utf8'), key: readFileSync(opts.key, 'utf8') } : makeSelfSignedCert();
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const seen = new Set<string>();

  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const answer = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (req.method !== 'POST') return answer(405, { error: 'POST only' });
      if (size > MAX_BODY) return answer(413, { error: 'body too large' });
      try {
        const event = verifyWebhook({ rawBody: Buffer.concat(chunks), headers: req.headers, secret: opts.secret });
        const key = String(req.headers['idempotency-key'] ?? event.id);
        const duplicate = seen.has(key);
        seen.add(key);
        const alert = event.alert as { id?: string; title?: string; status?: string; severity?: string };
        out(
          `${new Date().toISOString()} ${event.event}${event.test ? ' (test)' : ''} delivery=${event.id}${duplicate ? ' DUPLICATE' : ''} ` +
            `alert=${alert.id} [${alert.severity}/${alert.status}] ${alert.title ?? ''}`,
        );
        answer(200, { ok: true, duplicate });
      } catch (err) {
        if (err instanceof WebhookVerificationError) {
          out(`${new Date().toISOString()} rejected (${err.code}): ${err.message}`);
          return answer(err.statusCode, { error: err.code });
        }
        answer(500, { error: 'internal' });
      }
    });
  });
  const port = Number(opts.port ?? 9443);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${actualPort}/`;
  return { server, url, close: () => new Promise((r) => server.close(() => r())) };
}

export async function runListener(opts: Record<string, string>): Promise<void> {
  const l = await startListener({ secret: opts.secret!, port: opts.port, host: opts.host, cert: opts.cert, key: opts.key });
  process.stdout.write(`listening on ${l.url} — verifying with the given secret; Ctrl+C to stop\n`);
  const stop = () => void l.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
