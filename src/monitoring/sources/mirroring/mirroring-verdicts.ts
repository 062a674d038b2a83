/**
 * What the mirroring collector concludes from one answer — pure functions, so the rules are
 * read (and tested) in one place. A database is down when its mirroring is Stopped or Paused
 * (a paused capacity pauses it) or the platform reports an error; the transitional states keep
 * the last verdict. A table is failed when its status is Failed. Lag has three levels against
 * the tenant's thresholds; a table whose latency is not reported keeps its last level.
 */
import type { MirroringLag } from '../../connection/mirroring-lag.js';
import type { DatabaseStatus } from './mirroring-reads.js';

export type LagLevel = 'none' | 'info' | 'error';

const DOWN = new Set(['stopped', 'paused']);
const UP = new Set(['running']);

export function databaseIsDown(s: DatabaseStatus, previous: boolean): boolean {
  if (s.errorCode) return true;
  const status = s.status.toLowerCase();
  if (DOWN.has(status)) return true;
  if (UP.has(status)) return false;
  return previous;
}

export function tableIsFailed(status: string): boolean {
  return status.toLowerCase() === 'failed';
}

export function lagLevel(latencySeconds: number | null, t: MirroringLag, previous: LagLevel): LagLevel {
  if (latencySeconds === null) return previous;
  if (latencySeconds > t.errorSeconds) return 'error';
  if (latencySeconds > t.infoSeconds) return 'info';
  return 'none';
}
