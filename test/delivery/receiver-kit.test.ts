// @engine-neutral: no database is opened here
/**
 * Receiver kit: verifyWebhook, exported from the package, and `vigia listen`
 * run as the real CLI over HTTPS on loopback, answering 2xx / 400 (stale timestamp) / 401 (bad signature).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';
import { verifyWebhook, WebhookVerificationError } from '../../src/index.js';
import { computeSignature, webhookHeaders } from '../../src/delivery/signing.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SECRET = 'whsec_kitTestSecret0123456789abcdefghij';
const BODY = '{"id":"dlv_1","event":"alert.opened","occurredAt":"2026-06-15T12:00:00.000Z","alert":{"id":"alt_1","title":"Título ✓"}}';

describe('verifyWebhook', () => {
  const now = new Date('2026-06-15T12:00:00Z');
  const headers = webhookHeaders({ deliveryId: 'dlv_1', event: 'alert.opened', body: BODY, secret: SECRET, now });

  it('accepts a correctly signed, fresh delivery and returns the event', () => {
    const ev = verifyWebhook({ rawBody: Buffer.from(BODY), headers, secret: SECRET, now });
    expect(ev).toMatchObject({ id: 'dlv_1', event: 'alert.opened' });
    // A Fetch Headers object works too, and the string body form.
    expect(verifyWebhook({ rawBody: BODY, headers: new Headers(headers), secret: SECRET, now: now.getTime() + 299_000 }).id).toBe('dlv_1');
  });

  it('matches the documented signature rule (key = UTF-8 of the whole whsec_ string)', async () => {
    const { createHmac } = await import('node:crypto');
    const ts = headers['x-service-timestamp'];
    const expected = 'sha256=' + createHmac('sha256', SECRET).update(`${ts}.${BODY}`).digest('hex');
    expect(headers['x-service-signature']).toBe(expected);
    expect(computeSignature(SECRET, ts!, Buffer.from(BODY))).toBe(expected);
  });

  it('rejects stale timestamps (400) and bad signatures (401) with a code', () => {
    const stale = () => verifyWebhook({ rawBody: BODY, headers, secret: SECRET, now: now.getTime() + 301_000 });
    expect(stale).toThrow(WebhookVerificationError);
    try {
      stale();
    } catch (e) {
      expect((e as WebhookVerificationError).code).toBe('stale_timestamp');
      expect((e as WebhookVerificationError).statusCode).toBe(400);
    }
    for (const bad of [
      { rawBody: BODY + ' ', headers, secret: SECRET },
      { rawBody: BODY, headers, secret: SECRET.slice(6) },
      { rawBody: BODY, headers: { ...headers, 'x-service-signature': 'sha256=00' }, secret: SECRET },
      { rawBody: BODY, headers: { ...headers, 'x-service-signature': undefined }, secret: SECRET },
    ]) {
      try {
        verifyWebhook({ ...bad, now });
        throw new Error('accepted');
      } catch (e) {
        expect((e as WebhookVerificationError).code).toBe('bad_signature');
        expect((e as WebhookVerificationError).statusCode).toBe(401);
      }
    }
    expect(() => verifyWebhook({ rawBody: BODY, headers: { ...headers, 'x-service-timestamp': 'abc' }, secret: SECRET, now })).toThrow(/Timestamp/);
    expect(() => verifyWebhook({ rawBody: BODY, headers, secret: SECRET, now: now.getTime() + 10_000, toleranceSeconds: 5 })).toThrow(/seconds/);
  });
});

describe('vigia listen', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('serves HTTPS on loopback with a self-signed certificate and answers 200/400/401', async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'listen', '--secret', SECRET, '--port', String(port)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const deadline = Date.now() + 40_000;
    while (!out.includes('listening on')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`listener did not start: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Self-signed: this test client trusts it explicitly by skipping verification.
    const agent = new Agent({ connect: { rejectUnauthorized: false } });
    const post = async (h: Record<string, string>, body = BODY) =>
      request(`https://127.0.0.1:${port}/`, { method: 'POST', headers: h, body, dispatcher: agent }).then(async (r) => ({ status: r.statusCode, text: await r.body.text() }));
    const fresh = () => webhookHeaders({ deliveryId: 'dlv_1', event: 'alert.opened', body: BODY, secret: SECRET, now: new Date() });

    expect((await post(fresh())).status).toBe(200);
    const again = await post(fresh());
    expect(again.status).toBe(200);
    expect(JSON.parse(again.text)).toEqual({ ok: true, duplicate: true });
    expect((await post(webhookHeaders({ deliveryId: 'dlv_2', event: 'alert.opened', body: BODY, secret: SECRET, now: new Date(Date.now() - 600_000) }))).status).toBe(400);
    expect((await post(fresh(), BODY.replace('Título', 'Titulo'))).status).toBe(401);
    expect((await post({ ...fresh(), 'x-service-signature': 'sha256=' + '0'.repeat(64) })).status).toBe(401);
    await agent.close();
    // The listener prints after it answers: wait for its last line.
    await waitFor(() => out.split('rejected (bad_signature)').length > 2, { what: 'the listener to print its last line', timeoutMs: 10_000, detail: () => out });
    expect(out).toContain('alert.opened');
    expect(out).toContain('delivery=dlv_1');
    expect(out).toContain('DUPLICATE');
    expect(out).toContain('rejected (stale_timestamp)');
    expect(out).toContain('rejected (bad_signature)');
    expect(out).not.toContain(SECRET);
  });
});
