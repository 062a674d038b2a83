/**
 * The PostgreSQL LISTEN connection reconnects by itself; stopping it while a reconnect is
 * still opening its connection must close that connection too. A TCP relay in front of the
 * server holds the reconnect's connection open half-way (accepted, not yet relayed) until the
 * listener has been stopped, then lets it complete: the relay must then see every connection
 * closed. PostgreSQL only (the embedded engine has no connections).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../src/db/pg.js';
import { createPgTestDatabaseUrl } from '../helpers/db.js';
import { until } from './support.js';

/** A TCP relay to PostgreSQL that can hold new connections before relaying them. */
class Relay {
  private server = net.createServer((client) => this.accept(client));
  readonly open = new Set<net.Socket>();
  readonly held: net.Socket[] = [];
  holding = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  private accept(client: net.Socket): void {
    this.open.add(client);
    client.on('close', () => this.open.delete(client));
    client.on('error', () => undefined);
    if (this.holding) this.held.push(client);
    else this.relay(client);
  }
  private relay(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  }
  /** Drops every relayed connection, as a server restart would. */
  dropAll(): void {
    for (const s of this.open) s.destroy();
  }
  releaseHeld(): void {
    this.holding = false;
    for (const s of this.held.splice(0)) this.relay(s);
  }
  async close(): Promise<void> {
    this.dropAll();
    await new Promise((r) => this.server.close(r));
  }
}

describe('LISTEN connection', () => {
  let target: { url: string; drop(): Promise<void> };

  beforeAll(async () => {
    target = await createPgTestDatabaseUrl();
  });
  afterAll(async () => {
    await target.drop();
  });

  it('stop() while a reconnect is opening its connection closes that connection', async () => {
    const url = new URL(target.url);
    const relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
    await relay.start();
    url.port = String(relay.port);
    const db = createPgDatabase(url.toString());
    try {
      const unlisten = await db.listen('vigia_test_listen', () => undefined);
      expect(relay.open.size).toBe(1);
      relay.holding = true;
      relay.dropAll(); // the server "restarts": the listener reconnects by itself
      await until(async () => relay.held.length > 0, 10_000, 'the reconnect reaching the relay');
      const stopping = unlisten();
      relay.releaseHeld(); // the reconnect's connection completes after stop() was called
      await stopping;
      await until(async () => relay.open.size === 0, 10_000, 'every LISTEN connection closed after stop()');
    } finally {
      await db.close();
      await relay.close();
    }
  });
});
