import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the OS picked it), for a child process
 * that must be told its port. Far less likely to collide than a random number in a range the
 * OS also hands out for outgoing connections.
 */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}
