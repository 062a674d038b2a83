import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { errorOf, get, insertAlert, insertKey, insertOrg } from './helpers.js';

/** The answer is HTTP with the error envelope, no-store, the given status, and none of `secret`. */
function expectEnvelope(a: RawAnswer, status: number, notEchoed?: string): { code: string; message: string } {
  expect(a.status, a.raw.toString('latin1').slice(0, 300)).toBe(status);
  expect(a.headers['cache-control']).toBe('no-store');
  expect(a.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(a.body) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  if (notEchoed) expect(a.raw.toString('latin1')).not.toContain(notEchoed);
  return body.error;
}

describe('public API hostile input', () => {
  let t: TestApp;
  let key: string;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { apiRateLimitPerMinute: 100_000 } });
    const org = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, org)).key;
    await insertAlert(t.ctx.db, org, { createdAt: '2026-06-14T00:00:00Z', sourceType: 'Gateway' });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('answers 400 for NUL and other control characters in any query parameter, value or name', async () => {
    const cases = [
      '/alerts?sourceType=%00',
      '/alerts?sourceType=%00abc',
      '/alerts?sourceType=a%00b',
      '/alerts?sourceType=a%01b',
      '/alerts?sourceType=tab%09',
      '/alerts?sourceType=del%7F',
      '/alerts?sourceType=nel%C2%85',
      '/alerts?status=open%0A',
      '/costs/daily?currency=US%00D',
      '/sla?month=2026-06%00',
      '/alerts?x%00y=1',
      '/capacities?format=csv&format=%00',
    ];
    for (const url of cases) {
      const res = await get(t.app, url, key);
      expect(res.statusCode, url).toBe(400);
      const error = errorOf(res);
      expect(error.code, url).toBe('invalid_request');
      expect(error.message, url).toMatch(/control characters/);
      expect(res.body, url).not.toMatch(/[\u0000-\u001f]/);
    }
    // The same parameter without the control character is served.
    expect((await get(t.app, '/alerts?sourceType=Gateway', key)).json().totalCount).toBe(1);
    expect(t.ctx.logs.text).not.toContain('invalid byte sequence');
  });

  it('checks the key before looking at the parameters', async () => {
    const res = await get(t.app, '/alerts?sourceType=%00');
    expect(res.statusCode).toBe(401);
  });

  it('answers another method at once, without reading the announced body, and closes the connection', async () => {
    // 3.8 MB announced, 1 KB sent: an answer proves the body was never waited for.
    const announced = 3_800_000;
    for (const [method, path, status] of [
      ['POST', '/api/public/v1/alerts', 405],
      ['PUT', '/api/public/v1/sla', 405],
      ['POST', '/api/public/v1/nope', 404],
    ] as const) {
      const head = `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${announced}\r\n\r\n`;
      const a = await rawRequest(port, head + '['.repeat(1024));
      expectEnvelope(a, status);
      expect(a.headers.connection).toBe('close');
      expect(a.closed).toBe(true);
      if (status === 405) expect(a.headers.allow).toBe('GET, HEAD');
    }
  });

  it('answers a GET that announces a body without reading it, then closes the connection', async () => {
    const head = `GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${key}\r\nContent-Length: 3800000\r\n\r\n`;
    const a = await rawRequest(port, head + ']'.repeat(1024));
    expect(a.status).toBe(200);
    expect(a.headers.connection).toBe('close');
    expect(a.closed).toBe(true);
    const chunked = await rawRequest(port, `GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n${'['.repeat(1024)}\r\n`);
    expectEnvelope(chunked, 401);
    expect(chunked.closed).toBe(true);
  });
});

describe('parser and router errors on the whole server answer in the envelope without echoing the request', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  // Router-level answers keep the connection open: stop at the end of the answer.
  const send = (bytes: string) => rawRequest(port, bytes, { stopAfterAnswer: true });
  // Parser-level answers close the connection: read until the close.
  const sendUntilClose = (bytes: string) => rawRequest(port, bytes);

  it('bad percent-encoding in the path (public and admin API)', async () => {
    for (const path of ['/api/public/v1/alerts%zz', '/api/admin/v1/orgs/%zzSECRETPATH', '/%E0%A4%A']) {
      const a = await send(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const error = expectEnvelope(a, 400, path.slice(path.lastIndexOf('/') + 1));
      expect(error.code).toBe('invalid_request');
    }
  });

  it('an over-long path parameter answers 414', async () => {
    const long = 'p'.repeat(5000);
    const a = await send(`GET /api/admin/v1/orgs/${long} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_ADMIN_TOKEN}\r\n\r\n`);
    expect(expectEnvelope(a, 414, long).code).toBe('uri_too_long');
  });

  it('headers over 16 KB answer 431', async () => {
    const big = 'h'.repeat(20_000);
    const a = await sendUntilClose(`GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
    expect(expectEnvelope(a, 431, big.slice(0, 100)).code).toBe('headers_too_large');
    expect(a.closed).toBe(true);
  });

  it('malformed request lines, header folding, CL+TE and unknown methods answer 400 and close', async () => {
    const cases = [
      'GARBAGE\r\n\r\n',
      'GET /api/public/v1/alerts HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /api/public/v1/a lerts HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/public/v1/alerts\u0001ECHOME HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n  ECHOME-FOLD\r\n\r\n',
      'POST /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'BREW /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nBad Header: ECHOME-SPACE\r\n\r\n',
      'GET /api/admin/v1/orgs HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'GET /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000ECHOME-NUL\r\n\r\n',
    ];
    for (const bytes of cases) {
      const a = await sendUntilClose(bytes);
      const error = expectEnvelope(a, 400, 'ECHOME');
      expect(error.code, bytes).toBe('invalid_request');
      expect(a.headers.connection).toBe('close');
      expect(a.closed).toBe(true);
      expect(a.body).not.toContain('Client Error');
    }
  });

  it('an HTTP/1.1 request without Host answers 400 in the envelope', async () => {
    const a = await sendUntilClose('GET /healthz HTTP/1.1\r\n\r\n');
    expect(expectEnvelope(a, 400).message).toBe('the Host header is required');
    expect(a.closed).toBe(true);
  });

  it('a method Node accepts but no route has answers 404 or 405 in the envelope', async () => {
    const a = await send('PROPFIND /api/public/v1/alerts HTTP/1.1\r\nHost: x\r\n\r\n');
    expectEnvelope(a, 405, 'PROPFIND');
    const b = await send('PROPFIND /elsewhere HTTP/1.1\r\nHost: x\r\n\r\n');
    expectEnvelope(b, 404, 'elsewhere');
  });
});
