// @engine-neutral: no database is opened here
/**
 * Slots of a Power BI refresh schedule: local times in a Windows time zone, daylight saving
 * applied on the slot's own date, the newest slot at or before now, disabled or empty schedules.
 */
import { describe, expect, it } from 'vitest';
import { ianaZoneOf, lastSlotAtOrBefore, type RefreshSchedule } from '../../src/monitoring/platform/refresh-schedule.js';

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const sched = (over: Partial<RefreshSchedule> = {}): RefreshSchedule => ({ days: WEEKDAYS, times: ['06:00'], enabled: true, localTimeZoneId: 'E. South America Standard Time', ...over });
const last = (s: RefreshSchedule, now: string) => lastSlotAtOrBefore(s, new Date(now))?.toISOString() ?? null;

describe('refresh schedule slots', () => {
  it('maps Windows ids to IANA zones, accepts IANA ids, and knows when it does not know', () => {
    expect(ianaZoneOf('E. South America Standard Time')).toBe('America/Sao_Paulo');
    expect(ianaZoneOf('Pacific Standard Time')).toBe('America/Los_Angeles');
    expect(ianaZoneOf('Europe/Lisbon')).toBe('Europe/Lisbon');
    expect(ianaZoneOf('Nowhere Standard Time')).toBeNull();
  });

  it('finds the newest slot at or before now in the local zone', () => {
    // Brasília is UTC−3: 06:00 local is 09:00Z. Monday 2026-06-15.
    expect(last(sched(), '2026-06-15T09:00:00Z')).toBe('2026-06-15T09:00:00.000Z');
    expect(last(sched(), '2026-06-15T08:59:00Z')).toBe('2026-06-12T09:00:00.000Z'); // back to Friday
    expect(last(sched({ times: ['06:00', '18:30'] }), '2026-06-16T02:00:00Z')).toBe('2026-06-15T21:30:00.000Z');
    // Friday 22:00 in Brasília is already Saturday in UTC: the local day decides.
    expect(last(sched({ days: ['Friday'], times: ['22:00'] }), '2026-06-20T02:00:00Z')).toBe('2026-06-20T01:00:00.000Z');
    expect(last(sched({ days: ['Saturday'], times: ['22:00'] }), '2026-06-20T02:00:00Z')).toBe('2026-06-14T01:00:00.000Z');
  });

  it('applies daylight saving on the slot date', () => {
    const la = sched({ localTimeZoneId: 'Pacific Standard Time', days: ['Friday', 'Monday'], times: ['06:00'] });
    // Friday 2026-03-06 is PST (UTC−8); Monday 2026-03-09 is PDT (UTC−7).
    expect(last(la, '2026-03-08T12:00:00Z')).toBe('2026-03-06T14:00:00.000Z');
    expect(last(la, '2026-03-09T20:00:00Z')).toBe('2026-03-09T13:00:00.000Z');
  });

  it('has no slot for a disabled or empty schedule, and reads an unknown zone as UTC', () => {
    expect(last(sched({ enabled: false }), '2026-06-15T12:00:00Z')).toBeNull();
    expect(last(sched({ days: [] }), '2026-06-15T12:00:00Z')).toBeNull();
    expect(last(sched({ times: ['25:00'] }), '2026-06-15T12:00:00Z')).toBeNull();
    expect(last(sched({ localTimeZoneId: 'Nowhere Standard Time' }), '2026-06-15T12:00:00Z')).toBe('2026-06-15T06:00:00.000Z');
  });
});
