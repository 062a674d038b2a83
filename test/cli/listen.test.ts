/**
 * The local receiver loop with real deliveries: `vigia listen` keeps its certificate in a file the
 * sender trusts through NODE_EXTRA_CA_CERTS, verifies each delivery and hands it — raw body and
 * headers unchanged — to a local app, whose answer is printed and becomes the sender's answer.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/receiver/verify.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';
import { signal } from '../helpers/fixtures.js';
import { request as httpsRequest } from 'node:https';
import { webhookHeaders } from '../../src/delivery/signing.js';
import { startListener } from '../../src/receiver/listen.js';
import { serve, stopAll, vigia } from './processes.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

interface Received {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/** The developer's app: records each request and answers 202 "thanks <n>". */
async function startApp(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(202, { 'content-type': 'text/plain' }).end(`thanks ${received.length}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://localhost:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}


describe(`vigia listen --forward-to (${ENGINE})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'vigia-listen-'));
    if (ENGINE === 'pg') {
      const db = await createPgTestDatabaseUrl();
      env = { DATABASE_URL: db.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') };
      cleanup = db.drop;
    } else {
      env = { VIGIA_DATA_DIR: path.join(work, 'data') };
      cleanup = async () => undefined;
    }
    env.VIGIA_ADMIN_TOKEN = 'vat_listen_test_token_0123456789abcdefghij';
    env.VIGIA_DESTINATION_ALLOWLIST = 'localhost';
  });
  afterAll(async () => {
    stopAll();
    await cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  it('keeps its certificate in a file, verifies real deliveries and forwards them unchanged; the app answers the sender', async () => {
    const certDir = path.join(work, 'certs');
    const dataDir = path.join(work, 'listen-data');
    const made = vigia(['listen', '--cert-only', '--cert-dir', certDir], { VIGIA_DATA_DIR: dataDir });
    expect(await made.exited).toBe(0);
    // What it prints is the file to trust: the local authority that signed the listener's certificate.
    const certFile = made.stdout().trim();
    expect(certFile).toBe(path.join(dataDir, 'local-ca', 'ca.pem'));
    expect(readFileSync(certFile, 'utf8')).toContain('BEGIN CERTIFICATE');
    expect(readFileSync(path.join(certDir, 'cert.pem'), 'utf8')).toContain('BEGIN CERTIFICATE');

    // The sender trusts the listener through the file, not through the test CA.
    const server = await serve({ ...env, NODE_EXTRA_CA_CERTS: certFile });
    const admin = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${server.base}/api/admin/v1${url}`, {
        method,
        headers: { authorization: `Bearer ${env.VIGIA_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const org = (await admin('POST', '/orgs', { name: 'listen' })).json;
    const port = await freePort();
    const dest = await admin('POST', `/orgs/${org.id}/destinations`, { name: 'local', kind: 'webhook', url: `https://localhost:${port}/` });
    expect(dest.status).toBe(201);
    const secret = dest.json.signingSecret as string;

    const app = await startApp();
    const listener = vigia(['listen', '--secret', secret, '--port', String(port), '--cert-dir', certDir, '--forward-to', app.url], { VIGIA_DATA_DIR: dataDir });
    await listener.waitFor(/listening on https:\/\/localhost:\d+\//);
    expect(listener.stdout()).toContain(`certificate: ${path.join(certDir, 'cert.pem')}`);
    expect(listener.stdout()).toContain(`NODE_EXTRA_CA_CERTS=${certFile}`);

    const sent = await admin('POST', `/orgs/${org.id}/signals`, signal({ sourceId: 'listen-1', title: 'Gateway down for the loop' }));
    expect(sent.status).toBe(200);
    await listener.waitFor(/answered 202: thanks 1/);
    expect(listener.stdout()).toMatch(/alert\.opened delivery=\S+ alert=\S+ \[error\/open\] Gateway down for the loop/);

    // The app got the delivery byte for byte: it verifies with the same secret and headers.
    expect(app.received).toHaveLength(1);
    const got = app.received[0]!;
    const event = verifyWebhook({ rawBody: got.rawBody, headers: got.headers, secret });
    expect(event.event).toBe('alert.opened');
    expect(got.headers['idempotency-key']).toBeTruthy();
    expect(got.headers['content-type']).toContain('application/json');

    // The sender recorded the app's answer.
    // The attempt's outcome is written just after the answer arrives.
    const dests = await waitFor(
      async () => {
        const d = await admin('GET', `/orgs/${org.id}/destinations/${dest.json.id}/deliveries`);
        return d.json.value[0]?.status === 'pending' ? undefined : d;
      },
      { what: 'the delivery outcome to be recorded', timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(dests.json.value[0]).toMatchObject({ status: 'succeeded', lastStatusCode: 202 });

    // A forged delivery is refused by the listener and never reaches the app.
    // (This process trusts the listener through the same certificate file.)
    const { host: _host, 'content-length': _len, connection: _conn, ...headers } = got.headers as Record<string, string>;
    const forged = await undiciFetch(`https://localhost:${port}/`, {
      method: 'POST',
      headers,
      body: got.rawBody.toString('utf8').replace('Gateway down', 'Gateway fine'),
      dispatcher: new Agent({ connect: { ca: readFileSync(certFile, 'utf8') } }),
    });
    expect(forged.status).toBe(401);
    await listener.waitFor(/rejected \(/);
    expect(app.received).toHaveLength(1);

    listener.child.kill('SIGTERM');
    server.child.kill('SIGTERM');
    await app.close();
    expect(await server.exited).toBe(0);
  }, 180_000);

  it('forwards exactly the headers the delivery carried, no more (seen on the wire by the app)', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const app = await startApp();
    const listener = await startListener({ secret, port: 0, certDir: path.join(work, 'wire-certs'), caDir: path.join(work, 'wire-ca'), forwardTo: app.url, out: () => {} });
    try {
      const body = JSON.stringify({ id: 'dlv_wire', event: 'alert.opened', alert: { id: 'alt_1', title: 'wire', status: 'open', severity: 'error' } });
      const delivery = webhookHeaders({ deliveryId: 'dlv_wire', event: 'alert.opened', body, secret, now: new Date(), scheme: 'service+standard' });
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(listener.url, { method: 'POST', headers: delivery, ca: readFileSync(listener.trustFile, 'utf8'), agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(status).toBe(202);
      expect(app.received).toHaveLength(1);
      const got = app.received[0]!;
      // Each hop frames its own connection (host, connection, content-length); every other header
      // is the delivery's, with the delivery's value.
      const framing = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
      const forwarded = Object.fromEntries(Object.entries(got.headers).filter(([name]) => !framing.has(name)));
      expect(forwarded).toEqual(Object.fromEntries(Object.entries(delivery).map(([name, value]) => [name.toLowerCase(), value])));
      expect(got.rawBody.toString('utf8')).toBe(body);
    } finally {
      await listener.close();
      await app.close();
    }
  });
});
