/**
 * Fabric long-running operations as their description defines them: LongRunningOperationStatus
 * is Undefined, NotStarted, Running, Succeeded or Failed. The three unfinished states are polled
 * after Retry-After; Succeeded reads the result; Failed ends with the operation's error code; a
 * state the description does not define (such as "Cancelled") is named, not guessed at.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformClient, VendorAnswerError } from '../../src/monitoring/platform/platform-client.js';
import { createTransport, type Transport } from '../../src/monitoring/platform/transport.js';
import { certFiles } from '../fakes/fake-server.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

describe('long-running operations: the states of the description', () => {
  let ctx: TestContext;
  let server: Server;
  let origin: string;
  let transport: Transport;
  /** The states the operation answers, poll after poll. */
  let states: string[] = [];
  const polls: string[] = [];

  beforeAll(async () => {
    ctx = await createTestContext({ config: { destinationAllowlist: ['127.0.0.1'] } });
    const files = certFiles();
    server = createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (req, res) => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      if (req.method === 'POST') return res.writeHead(202, { location: `${origin}/v1/operations/op-1`, 'x-ms-operation-id': 'op-1', 'retry-after': '0' }).end();
      if (req.url === '/v1/operations/op-1/result') return json(200, { status: 'Online' });
      const status = states.shift() ?? 'Succeeded';
      polls.push(status);
      const times = { createdTimeUtc: '2026-06-15T12:00:00Z', lastUpdatedTimeUtc: '2026-06-15T12:00:01Z' };
      if (status === 'Failed') return json(200, { status, ...times, error: { errorCode: 'GatewayStatusCheckFailed', message: 'no' } });
      return json(200, { status, ...times }, { 'retry-after': '0' });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    transport = createTransport(ctx);
  });
  afterAll(async () => {
    await transport.destroy();
    await new Promise<void>((r) => server.close(() => r()));
    await ctx.close();
  });

  const client = () =>
    new PlatformClient({
      db: ctx.db,
      now: () => ctx.clock.now(),
      transport,
      tokens: { get: async () => 'token' },
      directoryId: 'lro-tenant',
      endpoints: { authorityHost: origin, powerBi: origin, fabric: origin, arm: origin },
      stats: { calls: 0, throttledCalls: 0 },
      deadline: Date.now() + 60_000,
      sleep: async () => {},
    });
  const check = () => client().longRunning<{ status: string }>({ family: 'fabric', audience: 'fabric', method: 'POST', url: `${origin}/v1/gateways/g/checkStatus` });

  it('Undefined, NotStarted and Running are polled until Succeeded; then the result is read', async () => {
    states = ['Undefined', 'NotStarted', 'Running', 'Succeeded'];
    polls.length = 0;
    expect(await check()).toEqual({ status: 'Online' });
    expect(polls).toEqual(['Undefined', 'NotStarted', 'Running', 'Succeeded']);
  });

  it('Failed ends with the operation\'s error code', async () => {
    states = ['Running', 'Failed'];
    await expect(check()).rejects.toThrow('long-running operation failed (GatewayStatusCheckFailed)');
  });

  it('a state the description does not define is named, and polling stops', async () => {
    states = ['Cancelled', 'Succeeded'];
    polls.length = 0;
    const err = await check().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VendorAnswerError);
    expect((err as Error).message).toBe('long-running operation answered the state "Cancelled", which its description does not define');
    expect(polls).toEqual(['Cancelled']);
  });
});
