/**
 * The live demo's SMTP sink (docs/notifications.md, "E-mail"): a real SMTP server on loopback
 * (the `smtp-server` package, STARTTLS with the demo certificate) that saves every message it
 * receives as a `.eml` file, so the demo's e-mail destination can be seen in any mail client.
 * `smtp-server` is a development dependency: without it (a production install) there is no sink
 * and the demo says so.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SmtpConfig } from './config-smtp.js';

export interface MailSink {
  /** The relay settings that send to this sink. */
  smtp: SmtpConfig;
  /** Where the .eml files are written. */
  dir: string;
  /** Files written so far, in order. */
  files: string[];
  close(): Promise<void>;
}

export async function startMailSink(dir: string, tls: { cert: Buffer | string; key: Buffer | string }): Promise<MailSink | null> {
  let SMTPServer: typeof import('smtp-server').SMTPServer;
  try {
    ({ SMTPServer } = await import('smtp-server'));
  } catch {
    return null;
  }
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const server = new SMTPServer({
    key: tls.key,
    cert: tls.cert,
    authOptional: true,
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const file = path.join(dir, `${stamp}-${String(files.length + 1).padStart(3, '0')}.eml`);
        writeFileSync(file, Buffer.concat(chunks));
        files.push(file);
        cb();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    smtp: {
      host: 'localhost',
      port,
      secure: false,
      starttls: 'required',
      auth: null,
      from: 'Vigia demo <vigia@demo.vigia.test>',
      fromAddress: 'vigia@demo.vigia.test',
      maxConnections: 1,
    },
    dir,
    files,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
