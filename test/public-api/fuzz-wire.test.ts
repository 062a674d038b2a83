import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, TEST_ADMIN_TOKEN, type TestApp } from '../helpers/context.js';
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { inParallel, insertAlert, insertCapacity, insertCost, insertKey, insertOrg, insertWorkspace } from './helpers.js';

/**
 * Fuzzing over real sockets: generated requests through an HTTP client, and hand-written
 * malformed bytes through raw TCP connections. Every answer must be below 500, and every error
 * answer must be the JSON error envelope with `Cache-Control: no-store`. A raw request may also
 * be closed without an answer — only where Node cannot answer (the request never completed, or an
 * answer to an earlier pipelined request was already on the wire).
 */

const SEED = Number(process.env.VIGIA_FUZZ_SEED ?? Date.now() % 2 ** 31);
const HTTP_RUNS = 9_000;
const RAW_RUNS = 1_500;
const WIDTH = 8;

const PUBLIC_PATHS = ['/alerts', '/alerts/metrics', '/capacities', '/workspaces', '/costs/daily', '/sla', '/openapi.json'];
const ADMIN_PATHS = ['/orgs', '/orgs/org_x', '/api-keys', '/alerts', '/destinations', '/deliveries'];
const NAMES = ['from', 'to', 'status', 'sourceType', 'page', 'pageSize', 'format', 'currency', 'month', 'x', '', '__proto__', 'from[]'];
const VALUES = [
  '',
  '0',
  '-1',
  '1000',
  '501',
  '99999999999999999999',
  'csv',
  'json',
  'open',
  'USD',
  '2026-06',
  '2026-02-30',
  '2026-06-01T00:00:00Z',
  '2026-06-01T24:00:00Z',
  '%00',
  '%zz',
  '%',
  '%C0%80',
  '%ED%A0%80',
  '%E0%A4%A',
  '=cmd()',
  'a'.repeat(3000),
];

/** A percent-encoded piece with, now and then, raw control characters encoded in it. */
const piece = fc.oneof(
  fc.constantFrom(...VALUES),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent),
  fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 }).map((bs) => bs.map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
);
const queryString = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...NAMES), piece), piece), { maxLength: 5 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function httpCase(key: string): fc.Arbitrary<Case> {
  const path = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...PUBLIC_PATHS).map((p) => `/api/public/v1${p}`) },
    { weight: 2, arbitrary: fc.constantFrom(...ADMIN_PATHS).map((p) => `/api/admin/v1${p}`) },
    { weight: 1, arbitrary: piece.map((p) => `/api/public/v1/${p}`) },
    { weight: 1, arbitrary: piece.map((p) => `/api/admin/v1/orgs/${p}`) },
    { weight: 1, arbitrary: fc.constantFrom('/', '/healthz', '/docs', '/metrics', '/nope').map((p) => p) },
  );
  const credentials = fc.oneof(
    fc.constant<Record<string, string>>({ 'x-api-key': key }),
    fc.constant<Record<string, string>>({ authorization: `ApiKey ${key}` }),
    fc.constant<Record<string, string>>({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` }),
    fc.constant<Record<string, string>>({}),
    fc.string({ maxLength: 60 }).map((s) => ({ 'x-api-key': s.replace(/[^\x21-\x7e]/g, '') || 'k' })),
    fc.stringMatching(/^vgk_[0-9A-Za-z]{8}_[0-9A-Za-z]{40}$/).map((k) => ({ 'x-api-key': k })),
  );
  const body = fc.option(fc.oneof(fc.string({ maxLength: 200 }), fc.constant('['.repeat(5000)), fc.constant('{"a":1}')), { nil: undefined });
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'),
      path,
      qs: queryString,
      credentials,
      contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', ''),
      body,
    })
    .map(({ method, path, qs, credentials, contentType, body }) => {
      const withBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
      return {
        method,
        path: qs ? `${path}?${qs}` : path,
        headers: { ...credentials, ...(withBody && contentType ? { 'content-type': contentType } : {}) },
        ...(withBody ? { body } : {}),
      };
    });
}

/** Hand-written request bytes, most of them malformed in some way. */
const rawCase: fc.Arbitrary<string> = (() => {
  const method = fc.oneof(fc.constantFrom('GET', 'POST', 'HEAD', 'BREW', 'G ET', 'get', '', 'GET\u0000'), fc.string({ unit: 'binary-ascii', maxLength: 8 }));
  const target = fc.oneof(
    fc.constantFrom('/api/public/v1/alerts', '/api/admin/v1/orgs', '/healthz', '*', 'http://x/api/public/v1/alerts', ''),
    piece.map((p) => `/api/public/v1/${p}`),
    fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => `/api/public/v1/alerts?sourceType=${s}`),
    fc.constant(`/api/admin/v1/orgs/${'p'.repeat(5000)}`),
  );
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/9.9', 'HTTP/1.1 ', 'http/1.1', '');
  const header = fc.oneof(
    fc.constantFrom(
      'Host: x',
      'Content-Length: 5',
      'Content-Length: -1',
      'Content-Length: 1, 2',
      'Transfer-Encoding: chunked',
      'Transfer-Encoding: gzip, chunked',
      'Transfer-Encoding: identity',
      ' folded-continuation',
      '\tfolded-tab',
      'Bad Name: v',
      'X-Nul: a\u0000b',
      `X-Api-Key: vgk_ABCDEFGH_${'z'.repeat(40)}`,
      `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
      'Expect: 100-continue',
      'Connection: upgrade',
      'Upgrade: websocket',
      `X-Big: ${'h'.repeat(17_000)}`,
    ),
    fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 12 }), fc.string({ unit: 'binary-ascii', maxLength: 30 })).map(([n, v]) => `${n}: ${v}`),
  );
  const body = fc.constantFrom('', 'hello', '0\r\n\r\n', '5\r\nhello\r\n0\r\n\r\n', 'zz\r\n', 'GARBAGE\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  const lineEnd = fc.constantFrom('\r\n', '\r\n', '\n', '\r');
  return fc
    .tuple(method, target, version, fc.array(header, { maxLength: 5 }), lineEnd, body)
    .map(([m, t, v, hs, eol, b]) => `${m} ${t} ${v}${eol}${hs.join(eol)}${hs.length ? eol : ''}${eol}${b}`);
})();

function envelopeProblem(status: number, headers: Record<string, unknown>, body: string, method: string): string | null {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return null;
  if (headers['cache-control'] !== 'no-store') return `no no-store on ${status}`;
  if (method === 'HEAD') return null;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const keys = Object.keys(parsed);
    if (keys.length !== 1 || keys[0] !== 'error') return `not the envelope: ${body.slice(0, 120)}`;
    if (typeof parsed.error?.code !== 'string' || typeof parsed.error?.message !== 'string') return `bad envelope: ${body.slice(0, 120)}`;
  } catch {
    return `not JSON on ${status}: ${body.slice(0, 120)}`;
  }
  return null;
}

describe(`fuzzing over real sockets (seed ${SEED})`, () => {
  let t: TestApp;
  let key: string;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      clock: new ManualClock('2026-06-15T12:00:00Z'),
      config: { apiRateLimitPerMinute: 1_000_000, apiInvalidKeyLimitPerMinute: 1_000_000 },
    });
    const org = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, org)).key;
    await insertAlert(t.ctx.db, org, { createdAt: '2026-06-14T00:00:00Z', message: '=1+1' });
    await insertCapacity(t.ctx.db, org, 'cap');
    await insertWorkspace(t.ctx.db, org, 'ws', 'r1');
    await insertCost(t.ctx.db, org, { date: '2026-06-01', capacityName: 'cap', currency: 'USD', cost: 1 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it(`${HTTP_RUNS} generated requests through an HTTP client: no 5xx, every error in the envelope`, async () => {
    const cases = fc.sample(httpCase(key), { numRuns: HTTP_RUNS, seed: SEED });
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: WIDTH, pipelining: 1 });
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    try {
      await inParallel(
        cases.map((c) => async () => {
          const res = await pool.request({ method: c.method, path: c.path, headers: c.headers, body: c.body ?? null });
          const body = await res.body.text();
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const problem = envelopeProblem(res.statusCode, res.headers, body, c.method);
          if (problem) problems.push(`${c.method} ${c.path.slice(0, 200)}: ${problem}`);
        }),
        WIDTH,
      );
    } finally {
      await pool.close();
    }
    expect(problems.slice(0, 10)).toEqual([]);
    // The generator reaches the interesting answers, not only one kind.
    for (const status of [200, 400, 401, 404, 405]) expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0);
  });

  it(`${RAW_RUNS} hand-written, mostly malformed requests on raw connections: an HTTP answer in the envelope, or a close`, async () => {
    const cases = fc.sample(rawCase, { numRuns: RAW_RUNS, seed: SEED });
    const problems: string[] = [];
    let answered = 0;
    let closedUnanswered = 0;
    await inParallel(
      cases.map((bytes) => async () => {
        let a: RawAnswer;
        try {
          // Half-close after writing: a request that never completes ends instead of waiting.
          a = await rawRequest(port, bytes, { stopAfterAnswer: true, endAfterWrite: true, timeoutMs: 15_000 });
        } catch (err) {
          problems.push(`${JSON.stringify(bytes.slice(0, 120))}: ${(err as Error).message}`);
          return;
        }
        if (a.status === null) {
          if (a.raw.length > 0) problems.push(`${JSON.stringify(bytes.slice(0, 120))}: not HTTP: ${a.raw.toString('latin1').slice(0, 120)}`);
          else closedUnanswered++;
          return;
        }
        answered++;
        const method = bytes.slice(0, bytes.indexOf(' '));
        const problem = envelopeProblem(a.status, a.headers, a.body, method);
        if (problem) problems.push(`${JSON.stringify(bytes.slice(0, 120))}: ${problem}`);
      }),
      WIDTH,
    );
    expect(problems.slice(0, 10)).toEqual([]);
    expect(answered).toBeGreaterThan(RAW_RUNS / 2);
    expect(answered + closedUnanswered).toBe(RAW_RUNS);
  });
});
