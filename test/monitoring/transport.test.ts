/**
 * The vendor transport and connections the server closed while we reused them: a platform ends
 * idle keep-alive connections on its own schedule, so a GET may be written to a connection that
 * is already gone. Such a GET is sent once more on a new connection; a POST never is.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport, type Transport } from '../../src/monitoring/platform/transport.js';
import { certFiles } from '../fakes/fake-server.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

/** Lets the answered connection go back to the pool before the next request picks one. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('vendor transport: a connection closed under a reused request', () => {
  let ctx: TestContext;
  let server: Server;
  let origin: string;
  let transport: Transport;
  const seen: string[] = [];
  const served = new WeakMap<Socket, number>();

  beforeAll(async () => {
    ctx = await createTestContext({ config: { destinationAllowlist: ['127.0.0.1'] } });
    const files = certFiles();
    // Answers the first request of each connection and keeps it open; a second request on the
    // same connection finds it closed without an answer (the server had ended it meanwhile).
    server = createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (req, res) => {
      const n = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, n);
      seen.push(`${req.method} ${n}`);
      if (n > 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' }).end(JSON.stringify({ ok: true }));
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    transport = createTransport(ctx);
  });

  afterAll(async () => {
    await transport?.destroy();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await ctx?.close();
  });

  it('a GET is sent again on a new connection and answers', async () => {
    seen.length = 0;
    for (const path of ['a', 'b', 'c']) {
      const res = await transport({ method: 'GET', url: `${origin}/v1/${path}`, headers: {} });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body.toString())).toEqual({ ok: true });
      await settle();
    }
    // At least one request went to a reused connection that closed under it, then to a new one.
    const reused = seen.indexOf('GET 2');
    expect(reused).toBeGreaterThan(0);
    expect(seen[reused + 1]).toBe('GET 1');
  });

  it('a POST is not repeated: the caller gets the network failure', async () => {
    seen.length = 0;
    // A transport of its own: one pooled connection, which the POST reuses.
    await transport.destroy();
    transport = createTransport(ctx);
    await transport({ method: 'GET', url: `${origin}/v1/c`, headers: {} });
    await settle();
    await expect(transport({ method: 'POST', url: `${origin}/v1/d`, headers: { 'content-type': 'application/json' }, body: '{}' })).rejects.toMatchObject({ kind: 'network' });
    expect(seen.filter((s) => s.startsWith('POST'))).toEqual(['POST 2']);
  });
});
