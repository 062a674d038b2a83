/**
 * The replication lag thresholds of a tenant connection (`mirroringLag`): a mirrored table whose
 * `lastSyncLatencyInSeconds` is over `infoSeconds` opens an info incident, over `errorSeconds`
 * an error one. Both are positive whole seconds, info below error; a change may give one of
 * them and is checked against the other as stored.
 */
import { invalidInput } from '../../errors.js';

export interface MirroringLag {
  infoSeconds: number;
  errorSeconds: number;
}

export const DEFAULT_MIRRORING_LAG: MirroringLag = { infoSeconds: 900, errorSeconds: 3600 };
/** A week: a lag threshold beyond it would never fire in practice (and keeps the value an int4). */
export const MAX_MIRRORING_LAG_SECONDS = 7 * 24 * 3600;

function seconds(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_MIRRORING_LAG_SECONDS) {
    throw invalidInput(`mirroringLag.${field} must be a whole number of seconds between 1 and ${MAX_MIRRORING_LAG_SECONDS}`);
  }
  return v;
}

/** The thresholds after applying `given` (absent fields keep `current`), validated. */
export function checkMirroringLag(given: Partial<MirroringLag> | undefined, current: MirroringLag = DEFAULT_MIRRORING_LAG): MirroringLag {
  const out = {
    infoSeconds: given?.infoSeconds === undefined ? current.infoSeconds : seconds(given.infoSeconds, 'infoSeconds'),
    errorSeconds: given?.errorSeconds === undefined ? current.errorSeconds : seconds(given.errorSeconds, 'errorSeconds'),
  };
  if (out.infoSeconds >= out.errorSeconds) {
    throw invalidInput(`mirroringLag.infoSeconds (${out.infoSeconds}) must be less than mirroringLag.errorSeconds (${out.errorSeconds})`);
  }
  return out;
}
