// @engine-neutral: no database is opened here
/**
 * The guarded client's per-origin pool (src/delivery/origin-pool.ts): a closed pool's late
 * `disconnect` must not close the origin's next pool, or every later send opens a new connection.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type Dispatcher, errors, request } from 'undici';
import { originPoolFactory } from '../../src/delivery/origin-pool.js';

describe('origin pool of the guarded client', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Connections opened for 20 sequential requests after the origin's pool was retired once with a connection still open. */
  async function connectionsAfterRetiring(agent: Agent): Promise<number> {
    let connects = 0;
    const onConnect = () => void connects++;
    subscribe('undici:client:connected', onConnect);
    try {
      const send = async () => (await request(`${origin}/x`, { dispatcher: agent, method: 'POST', body: '{}' })).body.text();
      await send();
      // The origin's pool reports a disconnect while its one connection is still open (as a
      // connection of an already closed pool does): the Agent closes and forgets that pool.
      let pool: Dispatcher | undefined;
      for (const [, v] of (agent as unknown as { [k: symbol]: Map<string, { dispatcher: Dispatcher }> })[
        Object.getOwnPropertySymbols(agent).find((s) => s.description === 'clients')!
      ]) pool = v.dispatcher;
      if (!pool) throw new Error('the agent has no pool for the origin');
      pool.emit('disconnect', new URL(origin), [pool], new errors.SocketError('stale'));
      connects = 0;
      for (let i = 0; i < 20; i++) await send();
      return connects;
    } finally {
      unsubscribe('undici:client:connected', onConnect);
      await agent.close();
    }
  }

  /** Connections a fresh agent opens for the same 20 sequential requests (the receiver's own rhythm: 1–2). */
  async function connectionsFresh(): Promise<number> {
    const agent = new Agent({ connections: 4, factory: originPoolFactory });
    let connects = 0;
    const onConnect = () => void connects++;
    subscribe('undici:client:connected', onConnect);
    try {
      for (let i = 0; i < 20; i++) await (await request(`${origin}/x`, { dispatcher: agent, method: 'POST', body: '{}' })).body.text();
      return connects;
    } finally {
      unsubscribe('undici:client:connected', onConnect);
      await agent.close();
    }
  }

  it('keeps reusing its connections after a pool was retired (the guarded client factory)', async () => {
    const fresh = await connectionsFresh();
    expect(fresh).toBeLessThanOrEqual(2);
    expect(await connectionsAfterRetiring(new Agent({ connections: 4, factory: originPoolFactory }))).toBeLessThanOrEqual(fresh);
  });

  it("undici's own pool opens a connection per request after the same event (remove the repair when this fails)", async () => {
    expect(await connectionsAfterRetiring(new Agent({ connections: 4 }))).toBeGreaterThan(10);
  });
});
