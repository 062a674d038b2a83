/**
 * The offset of an IANA time zone at an instant, from the platform's own zone data (Intl). Shared
 * by the refresh-schedule arithmetic of the monitoring core and the tenant simulator's schedules:
 * both ask it for every slot of every model, so it is cached. The slot arithmetic built on it stays
 * written twice on purpose (the simulator is the tests' oracle); this part is the platform's.
 */

/** One formatter per zone: building one costs far more than using it (20,000 models a run). */
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Offsets by zone and quarter hour: zones change offset only on quarter-hour boundaries, and a
 * run asks for the same few instants (each slot of each day) for every model.
 */
const offsets = new Map<string, number>();
const QUARTER_MS = 900_000;

/** Local wall-clock time − UTC, in ms, of `zone` at the instant `at` (epoch ms). */
export function zoneOffsetMs(zone: string, at: number): number {
  const key = `${zone}|${Math.floor(at / QUARTER_MS)}`;
  let known = offsets.get(key);
  if (known === undefined) {
    if (offsets.size >= 10_000) offsets.clear();
    known = computeOffsetMs(zone, Math.floor(at / QUARTER_MS) * QUARTER_MS);
    offsets.set(key, known);
  }
  return known;
}

function computeOffsetMs(zone: string, at: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  const parts = f.formatToParts(at);
  const n = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - Math.floor(at / 1000) * 1000;
}
