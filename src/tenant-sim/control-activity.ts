/** The simulator's controls — the tenant's activity log (activity-log.ts). Composed with the other areas in control.ts. */
import { addActivity } from './activity-log.js';
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';

export type ActivityControls = Pick<SimControl, 'activityEvent'>;

export function activityControls(kit: ControlKit): ActivityControls {
  const { s, deps } = kit;
  return {
    activityEvent(a) {
      if (a.record === undefined && (typeof a.activity !== 'string' || a.activity === '')) throw new SimControlError('give activity (an operation name) or record');
      if (a.lateMinutes !== undefined && (!Number.isInteger(a.lateMinutes) || a.lateMinutes < 0)) throw new SimControlError('lateMinutes must be a non-negative integer');
      if (a.fields !== undefined && (typeof a.fields !== 'object' || a.fields === null || Array.isArray(a.fields))) throw new SimControlError('fields must be an object');
      try {
        addActivity(s(), deps.now(), a);
      } catch (err) {
        throw new SimControlError((err as Error).message);
      }
    },
  };
}
