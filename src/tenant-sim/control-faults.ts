/** The simulator's controls — transport faults: throttling storms, huge and garbage answers. Composed with the other areas in control.ts. */
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';
import { API_FAMILIES } from './types.js';

export type FaultsControls = Pick<SimControl, 'metricsThrottled' | 'throttle' | 'hugeResponse' | 'garbageResponse' | 'oddResponse'>;

export function faultsControls(kit: ControlKit): FaultsControls {
  const { s, deps } = kit;
  return {
    metricsThrottled({ count }) {
      if (!Number.isInteger(count) || count < 0) throw new SimControlError('count must be a non-negative integer');
      s().settings.metricsThrottled = count;
    },
    throttle({ family, count, retryAfterSeconds }) {
      if (!API_FAMILIES.includes(family)) throw new SimControlError(`family must be one of ${API_FAMILIES.join(', ')}`);
      if (!Number.isInteger(count) || count < 0) throw new SimControlError('count must be a non-negative integer');
      deps.limits.storm(family, count, retryAfterSeconds ?? 1);
    },
    hugeResponse({ target, bytes }) {
      if (typeof target !== 'string' || target === '') throw new SimControlError('target is required');
      if (bytes === null || bytes === undefined) deps.faults.huge.delete(target);
      else if (!Number.isInteger(bytes) || bytes < 0) throw new SimControlError('bytes must be a non-negative integer');
      else deps.faults.huge.set(target, bytes);
    },
    garbageResponse({ path, on }) {
      if (typeof path !== 'string' || path === '') throw new SimControlError('path is required');
      if (on) deps.faults.garbage.add(path);
      else deps.faults.garbage.delete(path);
    },
    oddResponse({ path, body }) {
      if (typeof path !== 'string' || path === '') throw new SimControlError('path is required');
      if (body === null || body === undefined) deps.faults.odd.delete(path);
      else deps.faults.odd.set(path, body);
    },
  };
}
