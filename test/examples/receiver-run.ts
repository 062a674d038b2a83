/**
 * Runs one receiver example as a child process and checks it against real deliveries from a live
 * service, plus a stale, a tampered and a duplicate delivery.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { failureSignal, type LiveService } from './live-service.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TEST_CERT = path.join(ROOT, '.test-certs', 'server.crt');
export const TEST_KEY = path.join(ROOT, '.test-certs', 'server.key');

export interface ExampleProcess {
  port: number;
  /** The JSON lines the example printed so far. */
  lines(): Record<string, string>[];
  waitForLine(pred: (line: Record<string, string>) => boolean, timeoutMs?: number): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts `command args` with the example's environment and waits for its "listening" line. */
export async function startExample(command: string, args: string[], opts: { cwd: string; secret: string; env?: Record<string, string> }): Promise<ExampleProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(command, args, {
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env, VIGIA_SECRET: opts.secret, PORT: String(port), HOST: '127.0.0.1', TLS_CERT: TEST_CERT, TLS_KEY: TEST_KEY },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, string>);
  const waitForLine: ExampleProcess['waitForLine'] = (pred, timeoutMs = 60_000) =>
    waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`example exited (${child.exitCode}): ${err.slice(-2000)}`);
        return lines().find(pred);
      },
      { what: 'a matching line from the example', timeoutMs, intervalMs: 50, detail: () => `stdout: ${out.slice(-2000)} stderr: ${err.slice(-2000)}` },
    );
  await waitForLine((l) => typeof l.listening === 'string', 120_000);
  return {
    port,
    lines,
    waitForLine,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // Bounded: an example that ignores SIGTERM for 5 s is killed.
      await waitFor(() => child.exitCode !== null || child.signalCode !== null, { what: 'the example to exit', timeoutMs: 5000 }).catch(() => child.kill('SIGKILL'));
      await exited;
    },
  };
}

function sign(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`).digest('hex')}`;
}

async function post(port: number, body: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`https://localhost:${port}/webhook`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  await res.arrayBuffer();
  return res.status;
}

/**
 * The behaviour every example must show: a real delivery accepted, its redelivery (same
 * Idempotency-Key) answered 200 as a duplicate, a stale timestamp 400, a tampered body 401.
 */
export async function checkExample(service: LiveService, startIt: (secret: string) => Promise<ExampleProcess>): Promise<void> {
  const org = await service.admin('POST', '/orgs', { name: 'Examples' });
  // The destination URL needs the port, and the example needs the secret: make the destination
  // with a placeholder port first, start the example with its secret, then point it there.
  const dest = await service.admin('POST', `/orgs/${org.id}/destinations`, { name: 'example', kind: 'webhook', url: 'https://localhost:1/webhook' });
  const secret: string = dest.signingSecret;
  const example = await startIt(secret);
  try {
    await service.admin('PATCH', `/orgs/${org.id}/destinations/${dest.id}`, { url: `https://localhost:${example.port}/webhook` }, 200);

    // 1. A real delivery: a signal opens an incident, the dispatcher delivers alert.opened.
    const [outcome] = await service.admin('POST', `/orgs/${org.id}/signals`, [failureSignal(`gw-${Date.now()}`)], 200);
    const accepted = await example.waitForLine((l) => l.result === 'accepted' && l.alertId === outcome.alertId);
    expect(accepted).toMatchObject({ event: 'alert.opened', status: 'open' });
    expect(accepted.id).toMatch(/^dlv_/);
    // The example prints before it answers, and the service writes the outcome after the answer:
    // a redelivery is refused (409) until the first attempt is recorded as finished.
    const settled = (attempts: number) => () =>
      waitFor(
        async () => {
          const d = await service.admin('GET', `/orgs/${org.id}/deliveries/${accepted.id}`, undefined, 200);
          return d.status === 'succeeded' && d.attemptLog.length === attempts ? d : undefined;
        },
        { what: `delivery ${accepted.id} to be recorded as succeeded after ${attempts} attempt(s)`, timeoutMs: 30_000, intervalMs: 50 },
      );
    await settled(1)();

    // 2. The service sends the same delivery again: same Idempotency-Key, processed once.
    await service.admin('POST', `/orgs/${org.id}/deliveries/${accepted.id}/redeliver`, undefined, 202);
    await example.waitForLine((l) => l.result === 'duplicate' && l.id === accepted.id);
    const history = await settled(2)();
    expect(history.attemptLog.at(-1).statusCode).toBe(200);

    // 3. A stale timestamp (400) and a tampered body (401), each signed as the service would.
    const body = JSON.stringify({ id: 'dlv_crafted', event: 'alert.opened', occurredAt: new Date().toISOString(), alert: { id: 'alt_x', status: 'open' } });
    const base = { 'x-service-event': 'alert.opened', 'x-service-delivery': 'dlv_crafted', 'idempotency-key': 'dlv_crafted', 'user-agent': 'Service-Webhook/1.0' };
    const stale = Math.floor(Date.now() / 1000) - 400;
    expect(await post(example.port, body, { ...base, 'x-service-timestamp': String(stale), 'x-service-signature': sign(secret, stale, body) })).toBe(400);
    const fresh = Math.floor(Date.now() / 1000);
    const tampered = body.replace('"open"', '"resolved"');
    expect(await post(example.port, tampered, { ...base, 'x-service-timestamp': String(fresh), 'x-service-signature': sign(secret, fresh, body) })).toBe(401);
    expect(await post(example.port, body, { ...base, 'x-service-timestamp': String(fresh), 'x-service-signature': sign('whsec_other', fresh, body) })).toBe(401);
    // The untampered one is accepted, proving the 401s came from the bytes, not the request shape.
    expect(await post(example.port, body, { ...base, 'x-service-timestamp': String(fresh), 'x-service-signature': sign(secret, fresh, body) })).toBe(200);

    // stdout may trail the HTTP answer: wait for the last line before comparing the sequence.
    await example.waitForLine((l) => l.result === 'accepted' && l.id === 'dlv_crafted');
    const results = example.lines().filter((l) => l.result).map((l) => l.result);
    expect(results).toEqual(['accepted', 'duplicate', 'stale', 'bad_signature', 'bad_signature', 'accepted']);
  } finally {
    await example.stop();
  }
}
