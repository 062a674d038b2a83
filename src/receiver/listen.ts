/**
 * `vigia listen`: a local HTTPS receiver that verifies each delivery with verifyWebhook, prints
 * it, and answers as a receiver must — 2xx accepted, 400 stale timestamp, 401 bad signature.
 * Duplicates (same Idempotency-Key) are accepted and marked. With a forward address, each
 * verified delivery is handed on to a local app — raw body and headers unchanged — and the app's
 * answer is printed and becomes the answer to the sender (the loop of Stripe's or Svix's CLI).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { verifyWebhook, WebhookVerificationError } from './verify.js';
import { defaultCaDir, ensureLocalCert } from './local-ca.js';

export interface ListenOptions {
  secret: string;
  port?: string | number;
  host?: string;
  cert?: string;
  key?: string;
  /** Where a made certificate is kept (default VIGIA_DATA_DIR/listen). */
  certDir?: string;
  /** Where the local authority that signs it is kept (default VIGIA_DATA_DIR/local-ca). */
  caDir?: string;
  /** http(s) URL of a local app that gets each verified delivery. */
  forwardTo?: string;
  /** Where lines are printed (default stdout). */
  out?: (line: string) => void;
}

const MAX_BODY = 4 * 1024 * 1024;
/** Hop-by-hop headers belong to one connection and are not forwarded; every other header is. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'te', 'trailer', 'proxy-connection']);

export function defaultCertDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.VIGIA_DATA_DIR || './data', 'listen');
}

/**
 * The TLS pair: the given files, or the kept one signed by the local authority (made on first
 * use). `trustFile` is what the sender must trust: the authority, or the given certificate.
 */
export function listenerTls(opts: Pick<ListenOptions, 'cert' | 'key' | 'certDir' | 'caDir'>): { cert: string; key: string; certFile: string; trustFile: string; created: boolean } {
  if (Boolean(opts.cert) !== Boolean(opts.key)) throw new Error('--cert and --key go together');
  if (opts.cert && opts.key) {
    const certFile = path.resolve(opts.cert);
    return { cert: readFileSync(opts.cert, 'utf8'), key: readFileSync(opts.key, 'utf8'), certFile, trustFile: certFile, created: false };
  }
  const made = ensureLocalCert(opts.certDir ?? defaultCertDir(), opts.caDir ?? defaultCaDir());
  return { cert: made.cert, key: made.key, certFile: made.certFile, trustFile: made.caFile, created: made.created };
}

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export async function startListener(opts: ListenOptions): Promise<{ server: Server; url: string; certFile: string; trustFile: string; close(): Promise<void> }> {
  if (!opts.secret?.startsWith('whsec_')) throw new Error('--secret must be the destination signing secret (whsec_…)');
  let forwardTo: URL | undefined;
  if (opts.forwardTo) {
    try {
      forwardTo = new URL(opts.forwardTo);
    } catch {
      throw new Error('--forward-to must be a URL such as http://localhost:3000/hook');
    }
    if (!['http:', 'https:'].includes(forwardTo.protocol)) throw new Error('--forward-to must be an http or https URL');
  }
  const tls = listenerTls(opts);
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const seen = new Set<string>();

  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const answer = (status: number, body: string | object, contentType = 'application/json') => {
        res.writeHead(status, { 'content-type': contentType }).end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (req.method !== 'POST') return answer(405, { error: 'POST only' });
      if (size > MAX_BODY) return answer(413, { error: 'body too large' });
      const rawBody = Buffer.concat(chunks);
      let line: string;
      let duplicate: boolean;
      try {
        const event = verifyWebhook({ rawBody, headers: req.headers, secret: opts.secret });
        const key = String(req.headers['idempotency-key'] ?? event.id);
        duplicate = seen.has(key);
        seen.add(key);
        const alert = event.alert as { id?: string; title?: string; status?: string; severity?: string };
        line =
          `${new Date().toISOString()} ${event.event}${event.test ? ' (test)' : ''} delivery=${event.id}${duplicate ? ' DUPLICATE' : ''} ` +
          `alert=${alert.id} [${alert.severity}/${alert.status}] ${alert.title ?? ''}`;
      } catch (err) {
        if (err instanceof WebhookVerificationError) {
          out(`${new Date().toISOString()} rejected (${err.code}): ${err.message}`);
          return answer(err.statusCode, { error: err.code });
        }
        return answer(500, { error: 'internal' });
      }
      out(line);
      if (!forwardTo) return answer(200, { ok: true, duplicate });
      // undici.request, not fetch: fetch adds headers of its own (accept, accept-language,
      // accept-encoding, sec-fetch-mode) that the delivery did not carry.
      request(forwardTo, { method: 'POST', headers: forwardHeaders(req.headers), body: rawBody, headersTimeout: 30_000, bodyTimeout: 30_000 })
        .then(async (app) => {
          const text = await app.body.text();
          out(`  → ${forwardTo} answered ${app.statusCode}${text ? `: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}` : ''}`);
          const type = app.headers['content-type'];
          answer(app.statusCode, text, (Array.isArray(type) ? type[0] : type) ?? 'text/plain');
        })
        .catch((err: unknown) => {
          const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
          out(`  → ${forwardTo} failed: ${reason}`);
          answer(502, { error: 'forward_failed', message: `${forwardTo} did not answer: ${reason}` });
        });
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
  const url = `https://${host === '127.0.0.1' || host === '::1' ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${actualPort}/`;
  return { server, url, certFile: tls.certFile, trustFile: tls.trustFile, close: () => new Promise((r) => server.close(() => r())) };
}

export async function runListener(opts: Record<string, string | undefined>): Promise<void> {
  if (opts.certOnly) {
    // The file to trust: with the local authority, one file serves the listener and the tenant simulator.
    const tls = listenerTls({ cert: opts.cert, key: opts.key, certDir: opts.certDir });
    process.stdout.write(`${tls.trustFile}\n`);
    return;
  }
  if (!opts.secret) throw new Error('--secret is required: the signing secret of the destination (whsec_…)');
  const l = await startListener({
    secret: opts.secret,
    port: opts.port,
    host: opts.host,
    cert: opts.cert,
    key: opts.key,
    certDir: opts.certDir,
    forwardTo: opts.forwardTo,
  });
  process.stdout.write(
    [
      `listening on ${l.url} — verifying with the given secret${opts.forwardTo ? `, forwarding to ${opts.forwardTo}` : ''}; Ctrl+C to stop`,
      `certificate: ${l.certFile}`,
      `  (the sender must trust it: start Vigia with NODE_EXTRA_CA_CERTS=${l.trustFile}${l.trustFile !== l.certFile ? ', the local authority that also signs the tenant simulator\'s certificate' : ''})`,
      '',
    ].join('\n'),
  );
  const stop = () => void l.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
