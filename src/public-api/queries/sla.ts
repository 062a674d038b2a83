import type { Queryable } from '../../db/index.js';
import { summarizeIncidents, type DurationStats, type NoisySource, type SourceTypeCount } from './metrics.js';

export interface SlaReport {
  month: string;
  targets: { mttaMinutes: number; mttrMinutes: number; availabilityPercent: number };
  totals: {
    incidents: number;
    acknowledgedWithinTarget: number;
    ackCompliancePercent: number;
    resolvedWithinTarget: number;
    resolutionCompliancePercent: number;
  };
  mtta: DurationStats;
  mttr: DurationStats;
  incidentsBySourceType: SourceTypeCount[];
  noisiestSources: NoisySource[];
  availability: CapacityAvailability[];
}

export interface CapacityAvailability {
  capacityName: string;
  availabilityPercent: number;
  downtimeMinutes: number;
  meetsTarget: boolean;
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** Percent of incidents within target; a month without incidents breached nothing: 100. */
const percent = (part: number, whole: number) => (whole === 0 ? 100 : round((part / whole) * 100, 2));

/**
 * Total length of the union of [start, end) intervals, in ms. Sorted by start, a sweep merges
 * overlaps, so two incidents open at once for one capacity count their common time once.
 */
export function unionLengthMs(intervals: Array<[number, number]>): number {
  const sorted = intervals.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [s, e] of sorted) {
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else if (e > curEnd) {
      curEnd = e;
    }
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/** The capacity of a Capacity incident (the expression of the indexes of migrations 030 and 072). */
const CAPACITY = "coalesce(nullif(capacity_name, ''), source_name)";
/** The open Capacity error incidents of organization $1: the predicate of index alerts_capacity_open. */
const OPEN = `org_id = $1 AND source_type = 'Capacity' AND severity = 'error'
  AND coalesce(resolved_at, 'infinity'::timestamptz) = 'infinity'::timestamptz`;

/**
 * Availability per capacity over [monthStart, periodEnd), periodEnd = the month's end or now for
 * the current month. Downtime = union of the intervals in which a Capacity incident of severity
 * error was open for the capacity, clipped to the period; the capacity is the incident's
 * capacity_name, or its source_name when capacity_name is empty. Every capacity of the
 * inventory is listed (100% when it had no downtime), plus any capacity that had an incident.
 *
 * One statement: the union is the sweep of unionLengthMs done in SQL — sorted by start, each
 * interval adds the part of it beyond the latest end of the intervals before it (they all start
 * no later, so what they cover of [start, ∞) is [start, that end)) — on instants truncated to
 * milliseconds like a JavaScript Date, so the answer is the one the sweep in Node gave, without
 * shipping every incident of the month (tens of thousands of rows on a busy organization) to Node.
 * Empty intervals (end ≤ start once clipped and truncated) add nothing and reach no later start, so every row goes through the one pass,
 * and a capacity whose incidents are all empty is still listed (0 downtime).
 *
 * Incidents not resolved at all are never read one by one: they all end at the period's end, so
 * per capacity only the earliest of them matters. Migration 072's partial index
 * alerts_capacity_open holds just them, by capacity and start: a skip scan finds the capacities
 * (recursive CTE, one probe each) and one more probe per capacity its earliest open incident.
 * The resolved ones come from alerts_capacity_downtime, coalesce(resolved_at, ∞) in (month start,
 * ∞) — the two ranges split the plain condition's incidents exactly. Before 072 the statement read
 * every open incident too: ~29,000 index entries for one month of the benchmark, now ~14,600.
 */
export async function capacityAvailability(
  db: Queryable,
  orgId: string,
  monthStart: Date,
  periodEnd: Date,
  targetPercent: number,
): Promise<CapacityAvailability[]> {
  const lo = monthStart.getTime();
  const hi = periodEnd.getTime();
  const { rows } = await db.query<{ capacity: string; down_ms: number | string }>(
    `WITH RECURSIVE
     k AS (SELECT (SELECT min(${CAPACITY}) FROM alerts WHERE ${OPEN}) AS capacity
           UNION ALL
           SELECT (SELECT min(${CAPACITY}) FROM alerts WHERE ${OPEN} AND ${CAPACITY} > k.capacity)
             FROM k WHERE k.capacity IS NOT NULL),
     f AS (SELECT capacity, (SELECT min(created_at) FROM alerts
                              WHERE ${OPEN} AND ${CAPACITY} = k.capacity AND created_at < $3) AS first_open
             FROM k WHERE capacity IS NOT NULL),
     i AS (SELECT ${CAPACITY} AS capacity,
                  greatest(date_trunc('milliseconds', created_at, 'UTC'), $2) AS s,
                  least(date_trunc('milliseconds', resolved_at, 'UTC'), $3) AS e
             FROM alerts
            WHERE org_id = $1 AND source_type = 'Capacity' AND severity = 'error'
              AND coalesce(resolved_at, 'infinity'::timestamptz) > $2
              AND coalesce(resolved_at, 'infinity'::timestamptz) < 'infinity'::timestamptz AND created_at < $3
           UNION ALL
           SELECT capacity, greatest(date_trunc('milliseconds', first_open, 'UTC'), $2), $3
             FROM f WHERE first_open IS NOT NULL),
     o AS (SELECT capacity, s, e,
                  max(e) OVER (PARTITION BY capacity COLLATE "C" ORDER BY s ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
             FROM i),
     d AS (SELECT capacity, extract(epoch FROM sum(greatest(e - greatest(s, coalesce(reach, s)), interval '0'))) AS down_s
             FROM o GROUP BY capacity)
     SELECT DISTINCT coalesce(d.capacity, c.name) AS capacity, (coalesce(d.down_s, 0) * 1000)::int8 AS down_ms
       FROM d FULL JOIN (SELECT name FROM capacities WHERE org_id = $1) c ON c.name = d.capacity`,
    [orgId, monthStart, periodEnd],
  );
  const periodMs = Math.max(0, hi - lo);
  return rows
    .map((r) => ({ name: r.capacity, downMs: Number(r.down_ms) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name: capacityName, downMs }) => {
      const availability = periodMs === 0 ? 100 : (1 - downMs / periodMs) * 100;
      return {
        capacityName,
        availabilityPercent: round(availability, 3),
        downtimeMinutes: round(downMs / 60_000, 2),
        meetsTarget: availability >= targetPercent,
      };
    });
}

export async function slaReport(
  db: Queryable,
  org: { id: string; mttaMinutes: number; mttrMinutes: number; availabilityPercent: number },
  month: { month: string; start: Date; end: Date },
  now: Date,
): Promise<SlaReport> {
  const periodEnd = new Date(Math.min(month.end.getTime(), Math.max(now.getTime(), month.start.getTime())));
  const [summary, availability] = await Promise.all([
    summarizeIncidents(db, org.id, month.start, month.end, {
      ackSeconds: org.mttaMinutes * 60,
      resolveSeconds: org.mttrMinutes * 60,
    }),
    capacityAvailability(db, org.id, month.start, periodEnd, org.availabilityPercent),
  ]);
  return {
    month: month.month,
    targets: { mttaMinutes: org.mttaMinutes, mttrMinutes: org.mttrMinutes, availabilityPercent: org.availabilityPercent },
    totals: {
      incidents: summary.incidents,
      acknowledgedWithinTarget: summary.acknowledgedWithinTarget,
      ackCompliancePercent: percent(summary.acknowledgedWithinTarget, summary.incidents),
      resolvedWithinTarget: summary.resolvedWithinTarget,
      resolutionCompliancePercent: percent(summary.resolvedWithinTarget, summary.incidents),
    },
    mtta: summary.mtta,
    mttr: summary.mttr,
    incidentsBySourceType: summary.bySourceType,
    noisiestSources: summary.noisiestSources,
    availability,
  };
}

export async function loadSlaTargets(db: Queryable, orgId: string) {
  const { rows } = await db.query<{ mtta: number; mttr: number; avail: number }>(
    `SELECT sla_mtta_minutes AS mtta, sla_mttr_minutes AS mttr, sla_availability_percent AS avail
       FROM orgs WHERE id = $1`,
    [orgId],
  );
  const r = rows[0]!;
  return { id: orgId, mttaMinutes: r.mtta, mttrMinutes: r.mttr, availabilityPercent: r.avail };
}
