// @engine-neutral: no database is opened here
/**
 * `vigia tenants show` says how a rotating collector gets through the tenant in words, never
 * "rotation — s" when nothing takes turns or no rotation has completed yet.
 */
import { describe, expect, it } from 'vitest';
import { rotationText, scanText } from '../../src/cli/tenants.js';

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

describe('tenants show: metadata scan', () => {
  it('says workspaces described of those known, the queue and when the scans ran', () => {
    expect(scanText({ known: 50_000, described: 48_000, queued: 2_000, lastIncrementalScanAt: null, lastFullScanAt: null })).toBe(
      'scan: 48000 of 50000 workspaces described, 2000 queued · last incremental never · last full never',
    );
    expect(scanText({ known: 5, described: 5, queued: 0, lastIncrementalScanAt: '2026-06-15T12:05:00.000Z', lastFullScanAt: '2026-06-15T12:00:00.000Z' })).toBe(
      'scan: 5 of 5 workspaces described, 0 queued · last incremental 2026-06-15T12:05:00.000Z · last full 2026-06-15T12:00:00.000Z',
    );
  });
});
