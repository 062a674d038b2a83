import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { TEST_ADMIN_TOKEN, createTestContext, type TestContext } from '../helpers/context.js';
import { ensureAdminToken } from '../../src/admin-api/admin-token.js';
import { parseAnswer, type RawAnswer } from '../helpers/raw-http.js';

/**
 * A client that sends its request a byte at a time is cut off once VIGIA_REQUEST_TIMEOUT_MS has
 * passed (408, connection closed), on both APIs. Each drip comes well within the limit, so only a
 * limit on the whole request can end it; the drip would need far longer than the test's bound
 * to finish.
 */
const LIMIT_MS = 1_500;
const DRIP_EVERY_MS = 200;
/** The wait's bound: far past the limit plus Node's check interval, far before the drip ends. */
const BOUND_MS = 15_000;

function drip(port: number, head: string, tail: string): Promise<RawAnswer & { sentOfTail: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let sent = 0;
    let ticker: NodeJS.Timeout | undefined;
    const bound = setTimeout(() => {
      clearInterval(ticker);
      socket.destroy();
      reject(new Error(`not cut off within ${BOUND_MS} ms (sent ${sent} of ${tail.length} bytes)`));
    }, BOUND_MS);
    const finish = () => {
      clearInterval(ticker);
      clearTimeout(bound);
      resolve({ ...parseAnswer(Buffer.concat(chunks), true), sentOfTail: sent });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', finish);
    socket.on('close', finish);
    socket.write(head, () => {
      ticker = setInterval(() => {
        if (sent < tail.length && !socket.destroyed) socket.write(tail[sent++]!);
      }, DRIP_EVERY_MS);
    });
  });
}

describe('request time limit (VIGIA_REQUEST_TIMEOUT_MS)', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { VIGIA_REQUEST_TIMEOUT_MS: String(LIMIT_MS) } });
    await ensureAdminToken(ctx.db, TEST_ADMIN_TOKEN);
    app = await buildApp(ctx);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
  });

  it('cuts off a slow upload to the admin API with 408', async () => {
    const body = JSON.stringify({ name: 'slow upload'.padEnd(150, '.') });
    const head = `POST /api/admin/v1/orgs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await drip(port, head, body);
    expect(answer.closed).toBe(true);
    expect(answer.sentOfTail).toBeLessThan(body.length);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'request_timeout', message: expect.any(String) } });
    // Node's parser answers this one, outside Fastify's hooks: the same security headers.
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    const { rows } = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orgs WHERE name LIKE 'slow upload%'`);
    expect(rows[0]!.n).toBe(0);
  });

  it('cuts off a public-API request whose headers trickle in', async () => {
    const head = 'GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\n';
    const rest = `X-Api-Key: vgk_ABCDEFGH_${'x'.repeat(40)}\r\nX-Padding: ${'p'.repeat(100)}\r\n\r\n`;
    const answer = await drip(port, head, rest);
    expect(answer.closed).toBe(true);
    expect(answer.sentOfTail).toBeLessThan(rest.length);
    expect(answer.status).toBe(408);
  });

  it('leaves a request sent at a normal pace alone', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/admin/v1/orgs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'normal pace' }),
    });
    expect(res.status).toBe(201);
  });

  it('is 30 s by default and refuses nonsense', () => {
    expect(loadConfig({}).requestTimeoutMs).toBe(30_000);
    expect(() => loadConfig({ VIGIA_REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/VIGIA_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ VIGIA_REQUEST_TIMEOUT_MS: '10' })).toThrow(/VIGIA_REQUEST_TIMEOUT_MS/);
  });
});
