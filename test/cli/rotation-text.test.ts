/**
 * `vigia tenants show` says how a rotating collector gets through the tenant in words, never
 * "rotation — s" when nothing takes turns or no rotation has completed yet.
 */
import { describe, expect, it } from 'vitest';
import { rotationText } from '../../src/cli/tenants.js';

describe('tenants show: rotation', () => {
  it('every run when nothing takes turns', () => {
    expect(rotationText({ lastFullRotationSeconds: null, hot: 14, cold: 0 })).toBe('rotation: every run (14 hot, 0 cold)');
  });
  it('the seconds of the last full rotation once known; before that, that it is not complete', () => {
    expect(rotationText({ lastFullRotationSeconds: 5400, hot: 20, cold: 4980 })).toBe('rotation: full every 5400 s (20 hot, 4980 cold)');
    expect(rotationText({ lastFullRotationSeconds: null, hot: 20, cold: 4980 })).toBe('rotation: first full rotation not completed yet (20 hot, 4980 cold)');
    expect(rotationText({ lastFullRotationSeconds: null, hot: 20, cold: 4980 })).not.toMatch(/—/);
  });
});
