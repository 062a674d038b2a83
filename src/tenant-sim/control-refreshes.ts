/** The simulator's controls — semantic models' refresh history and schedules. Composed with the other areas in control.ts. */
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';
import { refreshException } from './refresh-errors.js';

const REFRESH_STATUSES = ['Completed', 'Failed', 'Unknown', 'Disabled'] as const;
/** The service keeps about this many refreshes per semantic model. */
const REFRESH_HISTORY_LENGTH = 60;
const WEEK_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export type RefreshesControls = Pick<SimControl, 'refreshResult' | 'scheduledRefreshes' | 'refreshSchedule' | 'skipScheduledRefresh' | 'lateScheduledRefresh' | 'failScheduledRefresh'>;

export function refreshesControls(kit: ControlKit): RefreshesControls {
  const { s, deps, item, model } = kit;
  return {
    refreshResult({ datasetId, status, errorCode, finish }) {
      const i = item(datasetId);
      if (i.type !== 'SemanticModel') throw new SimControlError(`${datasetId} is not a semantic model`);
      if (!REFRESH_STATUSES.includes(status)) throw new SimControlError(`status must be one of ${REFRESH_STATUSES.join(', ')}`);
      const at = new Date(deps.now()).toISOString();
      const failure = status === 'Failed' ? { serviceExceptionJson: refreshException(errorCode ?? 'ModelRefreshFailed_CredentialsNotSpecified') } : {};
      if (finish === true) {
        if (status === 'Unknown') throw new SimControlError('a refresh finishes as Completed, Failed or Disabled');
        const running = i.refreshes.find((r) => r.status === 'Unknown');
        if (!running) throw new SimControlError(`${datasetId} has no running refresh`);
        Object.assign(running, { status, endTime: at, ...failure });
        return;
      }
      i.refreshes.unshift({
        requestId: deps.newId(),
        refreshType: 'ViaApi',
        startTime: at,
        ...(status === 'Unknown' ? {} : { endTime: at }),
        status,
        ...failure,
      });
      i.refreshes.splice(REFRESH_HISTORY_LENGTH);
    },
    scheduledRefreshes({ on }) {
      s().settings.scheduledRefreshes = on === true;
      // Runs start from now on: slots passed while it was off never ran.
      for (const w of s().workspaces) for (const i of w.items) if (i.type === 'SemanticModel') i.scheduleRunUntil = deps.now();
    },
    refreshSchedule({ datasetId, days, times, enabled, localTimeZoneId }) {
      const i = model(datasetId);
      const was = i.refreshSchedule ?? { days: [], times: [], enabled: false, localTimeZoneId: 'UTC' };
      if (days !== undefined && (!Array.isArray(days) || days.some((d) => !WEEK_DAYS.includes(d)))) throw new SimControlError(`days must be a list of ${WEEK_DAYS.join(', ')}`);
      if (times !== undefined && (!Array.isArray(times) || times.some((t) => typeof t !== 'string' || !/^([01]\d|2[0-3]):[0-5]\d$/.test(t)))) throw new SimControlError('times must be a list of HH:MM');
      i.refreshSchedule = { days: days ?? was.days, times: times ?? was.times, enabled: enabled === undefined ? was.enabled : enabled === true, localTimeZoneId: localTimeZoneId ?? was.localTimeZoneId };
    },
    skipScheduledRefresh({ datasetId, count }) {
      if (count !== undefined && (!Number.isInteger(count) || count < 0)) throw new SimControlError('count must be a non-negative integer');
      model(datasetId).skipSlots = count ?? 1;
    },
    lateScheduledRefresh({ datasetId, minutes }) {
      if (!Number.isInteger(minutes) || minutes < 0) throw new SimControlError('minutes must be a non-negative integer');
      model(datasetId).lateMinutes = minutes;
    },
    failScheduledRefresh({ datasetId, errorCode }) {
      if (errorCode !== undefined && (typeof errorCode !== 'string' || errorCode === '')) throw new SimControlError('errorCode must be a non-empty string');
      const m = model(datasetId);
      if (!m.runsSchedule && !s().settings.scheduledRefreshes) m.scheduleRunUntil = deps.now();
      m.runsSchedule = true;
      m.failNextSlot = errorCode ?? 'ModelRefreshFailed_CredentialsNotSpecified';
    },
  };
}
