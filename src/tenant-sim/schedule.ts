/**
 * Scheduled refreshes of the simulated semantic models: each enabled schedule (days, times in a
 * Windows time zone) runs a refresh at every slot, as the service does — unless the slot was
 * skipped (the run never starts) or made late (the run completes minutes after its slot). Runs
 * are materialized lazily when a model's history is read, for the slots between the last read
 * and now; only when the tenant's `scheduledRefreshes` setting is on (tests of other workloads
 * keep a history that changes only when they say so).
 *
 * The slot arithmetic is written apart from src/monitoring/platform/refresh-schedule.ts on purpose (only the
 * zone offsets, the platform's Intl data, are shared: src/zone-offset.ts): the
 * simulator is the tests' oracle, and an oracle that shares the checked code shares its bugs.
 */
import type { SimItem, SimRefresh, SimRefreshSchedule } from './types.js';
import { zoneOffsetMs as offsetMs } from '../zone-offset.js';
import { refreshException } from './refresh-errors.js';

/** Windows time-zone ids the simulator knows (those the generated tenant and the tests use). */
const WINDOWS_TO_IANA: Record<string, string> = {
  UTC: 'UTC',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'SA Pacific Standard Time': 'America/Bogota',
  'Eastern Standard Time': 'America/New_York',
  'Pacific Standard Time': 'America/Los_Angeles',
  'GMT Standard Time': 'Europe/London',
  'W. Europe Standard Time': 'Europe/Berlin',
};

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const RUN_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** Slot instants (epoch ms) of a schedule in (from, to], oldest first. */
export function slotsBetween(s: SimRefreshSchedule, from: number, to: number): number[] {
  const zone = WINDOWS_TO_IANA[s.localTimeZoneId] ?? 'UTC';
  const out: number[] = [];
  // Local calendar days from the day before `from` to the day after `to` (offsets stay within ±14 h).
  for (let day = Math.floor(from / DAY_MS) - 1; day <= Math.floor(to / DAY_MS) + 1; day++) {
    if (!s.days.includes(DAY_NAMES[new Date(day * DAY_MS).getUTCDay()]!)) continue;
    for (const t of s.times) {
      const [h, m] = t.split(':').map(Number);
      const wall = day * DAY_MS + (h ?? 0) * 3_600_000 + (m ?? 0) * 60_000;
      const at = wall - offsetMs(zone, wall - offsetMs(zone, wall));
      if (at > from && at <= to) out.push(at);
    }
  }
  return out.sort((a, b) => a - b);
}

/** Brings a model's history up to `now`: finishes runs whose time came, starts the runs of passed slots. */
export function runScheduledRefreshes(model: SimItem, now: number, newId: () => string): void {
  for (const r of model.refreshes) {
    if (r.status === 'Unknown' && r.completesAt !== undefined && Date.parse(r.completesAt) <= now) {
      r.status = 'Completed';
      r.endTime = r.completesAt;
      delete r.completesAt;
    }
  }
  const s = model.refreshSchedule;
  const since = model.scheduleRunUntil ?? now;
  model.scheduleRunUntil = now;
  if (!s?.enabled) return;
  for (const slot of slotsBetween(s, since, now)) {
    if ((model.skipSlots ?? 0) > 0) {
      model.skipSlots = (model.skipSlots ?? 0) - 1;
      continue;
    }
    if (model.failNextSlot !== undefined) {
      // A run that fails at once (credentials, a data source refused): finished at its slot.
      const start = new Date(slot).toISOString();
      model.refreshes.unshift({ requestId: newId(), refreshType: 'Scheduled', startTime: start, endTime: start, status: 'Failed', serviceExceptionJson: refreshException(model.failNextSlot) });
      delete model.failNextSlot;
      continue;
    }
    const ends = slot + (model.lateMinutes !== undefined ? model.lateMinutes * 60_000 : RUN_MS);
    delete model.lateMinutes;
    const run: SimRefresh = { requestId: newId(), refreshType: 'Scheduled', startTime: new Date(slot).toISOString(), status: 'Unknown', completesAt: new Date(ends).toISOString() };
    if (ends <= now) {
      run.status = 'Completed';
      run.endTime = run.completesAt;
      delete run.completesAt;
    }
    model.refreshes.unshift(run);
  }
  model.refreshes.splice(60);
}
