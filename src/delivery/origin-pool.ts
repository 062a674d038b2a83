/**
 * The per-origin connection pool of the guarded client's undici Agent, with one repair.
 *
 * undici's Agent (7.x) counts the live connections of each origin's pool from the pool's
 * `connect` / `disconnect` events and closes the pool when the count reaches zero; the counter is
 * looked up by origin, not by pool. A pool that is already closed still emits `disconnect` as its
 * last connections end, and those events then count against the origin's NEXT pool: its count
 * drops to zero while it is in use, so it is closed after its first request, and its own
 * disconnect closes the pool after it. Measured on a 20,000-delivery PGlite drain: 19,952 TLS
 * connections for 20,000 sends and ~40,000 pool closes (every send paid a handshake; throughput
 * fell ~8×). A retired pool therefore stays silent: once closed or destroyed it emits no
 * connection events, so only the live pool's connections are counted.
 */
import { Pool } from 'undici';

const CONNECTION_EVENTS = new Set<string | symbol>(['connect', 'disconnect', 'connectionError']);

export class OriginPool extends Pool {
  private retired = false;

  override close(...args: unknown[]): never {
    this.retired = true;
    return (super.close as (...a: unknown[]) => never)(...args);
  }

  override destroy(...args: unknown[]): never {
    this.retired = true;
    return (super.destroy as (...a: unknown[]) => never)(...args);
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (this.retired && CONNECTION_EVENTS.has(event)) return false;
    return (super.emit as (e: string | symbol, ...a: unknown[]) => boolean)(event, ...args);
  }
}

/** The Agent's `factory`: one OriginPool per origin. */
export function originPoolFactory(origin: string | URL, opts: object): Pool {
  return new OriginPool(origin, opts as ConstructorParameters<typeof Pool>[1]);
}
