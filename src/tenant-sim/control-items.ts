/** The simulator's controls — Fabric items' job instances and schedules, mirrored databases and their tables. Composed with the other areas in control.ts. */
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';
import { failureReason, jobTypeOf } from './jobs.js';

export type ItemsControls = Pick<SimControl, 'jobResult' | 'finishJob' | 'jobSchedule' | 'mirroringStatus' | 'mirroringLag' | 'mirroredTableSync'>;

export function itemsControls(kit: ControlKit): ItemsControls {
  const { deps, item, mirroredTable } = kit;
  return {
    jobResult({ itemId, status, errorCode }) {
      const i = item(itemId);
      const start = new Date(deps.now()).toISOString();
      i.jobs.unshift({
        id: deps.newId(),
        jobType: jobTypeOf(i.type),
        invokeType: 'Manual',
        status,
        startTimeUtc: start,
        ...(status === 'Completed' || status === 'Failed' || status === 'Cancelled' ? { endTimeUtc: start } : {}),
        ...(status === 'Failed' ? { failureReason: failureReason(errorCode) } : {}),
      });
      i.jobs.splice(100);
    },
    finishJob({ itemId, status, errorCode }) {
      if (status !== 'Completed' && status !== 'Failed' && status !== 'Cancelled') throw new SimControlError('status must be Completed, Failed or Cancelled');
      const j = item(itemId).jobs.find((x) => x.status === 'NotStarted' || x.status === 'InProgress');
      if (!j) throw new SimControlError(`${itemId} has no running job instance`);
      j.status = status;
      j.endTimeUtc = new Date(deps.now()).toISOString();
      if (status === 'Failed') j.failureReason = failureReason(errorCode);
    },
    jobSchedule({ itemId, enabled }) {
      const i = item(itemId);
      if (enabled === null) i.schedules = [];
      else i.schedules = [{ id: deps.newId(), jobType: jobTypeOf(i.type), enabled: enabled === true }];
    },
    mirroringStatus({ itemId, status, table, tableStatus, errorCode }) {
      const i = item(itemId);
      if (!i.mirroring) throw new SimControlError(`${itemId} is not a mirrored database`);
      if (status) i.mirroring.status = status;
      if (table !== undefined) {
        const t = mirroredTable(i, table);
        if (tableStatus) {
          t.status = tableStatus;
          if (tableStatus === 'Failed') t.errorCode = errorCode ?? 'SourceTableNotAccessible';
          else delete t.errorCode;
        }
      } else if (errorCode !== undefined) {
        if (errorCode === null) delete i.mirroring.errorCode;
        else i.mirroring.errorCode = String(errorCode);
      }
    },
    mirroringLag({ itemId, table, seconds }) {
      const t = mirroredTable(item(itemId), table);
      if (seconds === null) delete t.lastSyncLatencyInSeconds;
      else if (!Number.isInteger(seconds) || seconds < 0) throw new SimControlError('seconds must be a non-negative integer or null');
      else t.lastSyncLatencyInSeconds = seconds;
    },
    mirroredTableSync({ itemId, table, lastSyncDateTime }) {
      const i = item(itemId);
      const t = i.mirroring?.tables.find((x) => x.sourceTableName === table);
      if (!t) throw new SimControlError(`no mirrored table ${table} in ${itemId}`);
      const at = lastSyncDateTime === undefined ? deps.now() : Date.parse(lastSyncDateTime);
      if (!Number.isFinite(at)) throw new SimControlError('lastSyncDateTime must be an ISO date-time');
      t.lastSyncDateTime = new Date(at).toISOString();
    },
  };
}
