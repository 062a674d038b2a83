/**
 * The guarded HTTP client against a real HTTPS receiver on loopback: every resolved address is
 * checked at connection time (DNS rebinding), IP literals before connecting, no redirects, no
 * proxy, one time limit covering headers and body, generic failure texts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { checkDestinationUrlResolved, createGuardedSend, createGuardedSendRaw, DeliveryNetworkError, setResolver } from '../../src/delivery/guarded-http.js';
import { startReceiver, type TestReceiver } from '../helpers/receiver.js';

describe('guarded HTTP client', () => {
  let rx: TestReceiver;
  let ctx: TestContext;
  beforeAll(async () => {
    rx = await startReceiver();
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await rx.close();
    await ctx.close();
  });

  const post = (url: string) => ({ method: 'POST' as const, url, headers: { 'content-type': 'application/json' }, body: '{}' });

  async function failure(p: Promise<unknown>): Promise<DeliveryNetworkError> {
    const err = await p.then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(DeliveryNetworkError);
    return err as DeliveryNetworkError;
  }

  it('DNS rebinding: a name that resolved public at save time and private at send time is refused at connect', async () => {
    let calls = 0;
    setResolver(ctx, async () => (++calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]));
    const url = `https://receiver.test:${rx.port}/hook`;
    await expect(checkDestinationUrlResolved(ctx, url)).resolves.toBeInstanceOf(URL); // save time: public
    const send = createGuardedSend(ctx, { timeoutMs: 3000 });
    const err = await failure(send(post(url)));
    expect(err.message).toBe('connection failed');
    expect(err.kind).toBe('blocked');
    expect(calls).toBe(2);
    expect(rx.requests).toHaveLength(0);
    await send.close();
  });

  it('refuses when any one of the resolved addresses is private', async () => {
    const before = rx.requests.length;
    const send = createGuardedSendRaw({
      timeoutMs: 3000,
      allowlist: [],
      resolver: async () => [{ address: '93.184.216.34', family: 4 }, { address: '::ffff:127.0.0.1', family: 6 }],
    });
    expect((await failure(send(post(`https://receiver.test:${rx.port}/`)))).kind).toBe('blocked');
    expect(rx.requests.length).toBe(before);
    await send.close();
  });

  it('connects through the checked lookup when the address is allowlisted (tests only)', async () => {
    rx.reset();
    const send = createGuardedSendRaw({ timeoutMs: 3000, allowlist: ['127.0.0.1'], resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
    const res = await send(post(`https://receiver.test:${rx.port}/via-name`));
    expect(res.statusCode).toBe(200);
    expect(rx.requests[0]!.url).toBe('/via-name');
    await send.close();
  });

  it('checks IP literals (which skip DNS) before connecting, IPv4-mapped included', async () => {
    rx.reset();
    const send = createGuardedSendRaw({ timeoutMs: 3000, allowlist: [], resolver: async () => [] });
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '10.0.0.1']) {
      expect((await failure(send(post(`https://${host}:${rx.port}/`)))).kind).toBe('blocked');
    }
    expect((await failure(send(post(`http://example.com/`)))).kind).toBe('blocked');
    expect((await failure(send(post(`https://u:p@example.com/`)))).kind).toBe('blocked');
    expect(rx.requests).toHaveLength(0);
    await send.close();
  });

  it('does not follow redirects and ignores HTTP(S)_PROXY', async () => {
    rx.reset();
    const saved = { https: process.env.HTTPS_PROXY, http: process.env.HTTP_PROXY, all: process.env.ALL_PROXY };
    process.env.HTTPS_PROXY = 'http://127.0.0.1:9'; // nothing listens there: using it would fail
    process.env.HTTP_PROXY = 'http://127.0.0.1:9';
    process.env.ALL_PROXY = 'http://127.0.0.1:9';
    try {
      const send = createGuardedSendRaw({ timeoutMs: 3000, allowlist: ['127.0.0.1'], resolver: async () => [] });
      rx.script([{ status: 302, headers: { location: `${rx.origin}/target` } }]);
      const res = await send(post(`${rx.origin}/start`));
      expect(res.statusCode).toBe(302);
      await new Promise((r) => setTimeout(r, 100));
      expect(rx.requests.map((r) => r.url)).toEqual(['/start']);
      await send.close();
    } finally {
      process.env.HTTPS_PROXY = saved.https;
      process.env.HTTP_PROXY = saved.http;
      process.env.ALL_PROXY = saved.all;
      for (const k of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY'] as const) if (process.env[k] === undefined) delete process.env[k];
    }
  });

  it('one time limit covers the headers and the body; failures are generic', async () => {
    rx.reset();
    const send = createGuardedSendRaw({ timeoutMs: 400, allowlist: ['127.0.0.1'], resolver: async () => [] });
    rx.script([{ hang: true }, { status: 200, stallBody: true }, { reset: true }]);
    expect((await failure(send(post(`${rx.origin}/a`)))).message).toBe('timeout');
    expect((await failure(send(post(`${rx.origin}/b`)))).message).toBe('timeout');
    expect((await failure(send(post(`${rx.origin}/c`)))).message).toBe('connection failed');
    // Nothing listening: refused connection, same generic text.
    expect((await failure(send(post(`https://127.0.0.1:9/`)))).message).toBe('connection failed');
    await send.close();
  });
});
