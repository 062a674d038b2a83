/**
 * What the freshness collector remembers of each semantic model and mirrored database, what one
 * run works on, and the signals its verdicts become (freshness.ts runs them, freshness-checks.ts
 * judges).
 */
import type { SignalInput } from '../../../alerts/signals.js';
import type { StateChange } from '../../engine/output.js';
import type { RefreshSchedule } from '../../platform/refresh-schedule.js';
import * as T from '../../messages/titles.js';

export const FRESHNESS_SOURCE = 'DataFreshness';
export const REFRESH_MISSED = 'RefreshMissed';
export const DATA_STALE = 'DataStale';

export interface ModelState {
  name: string;
  workspaceId: string;
  workspaceName: string;
  capacityId: string | null;
  schedule: RefreshSchedule | null;
  scheduleReadAt: string | null;
  /** Its schedule comes from the admin scan (scanner collector), not from a read of its own. */
  scanned?: boolean;
  /** End of the newest completed refresh seen (ISO). */
  lastCompletedAt: string | null;
  /** The newest slot already judged (completed in time, or missed). */
  judgedSlot: string | null;
  /** The slot whose RefreshMissed incident is open. */
  missedSlot: string | null;
  stale: boolean;
}

export interface MirrorState {
  name: string;
  workspaceId: string;
  workspaceName: string;
  capacityId: string | null;
  /** Tables (schema.table) with an open DataStale incident. */
  staleTables: string[];
}

export interface RefreshRow {
  status?: string;
  startTime?: string;
  endTime?: string;
}

export interface TableRow {
  sourceSchemaName?: string;
  sourceTableName?: string;
  metrics?: { lastSyncDateTime?: string };
}

export const modelKey = (id: string) => `model:${id}`;
export const mirrorKey = (id: string) => `mirror:${id}`;
export const tableId = (dbId: string, table: string) => `${dbId}/${table.toLowerCase()}`;

/** What one run works on: the remembered models and mirrors, what changed, and its output. */
export interface FreshnessRun {
  now: Date;
  models: Map<string, ModelState>;
  mirrors: Map<string, MirrorState>;
  changedModels: Set<string>;
  changedMirrors: Set<string>;
  signals: SignalInput[];
  changes: StateChange[];
}

export type CausesFor = (id: string, capacityId: string | null) => { sourceType: string; sourceId: string }[];

export function base(id: string, m: Pick<ModelState, 'name' | 'workspaceName'>, kind: string, now: Date) {
  return { sourceType: FRESHNESS_SOURCE, sourceId: id, sourceName: m.name, notificationKind: kind, severity: 'error' as const, workspaceName: m.workspaceName, occurredAt: now };
}

export function missedSignal(id: string, m: ModelState, slot: Date, rows: RefreshRow[], graceMinutes: number, now: Date, causes: { sourceType: string; sourceId: string }[]): SignalInput {
  const since = rows.filter((r) => Date.parse(r.startTime ?? '') >= slot.getTime());
  const why = since.some((r) => r.status === 'Unknown') ? 'running' : since.some((r) => r.status === 'Failed') ? 'failed' : 'none';
  return {
    ...base(id, m, REFRESH_MISSED, now),
    kind: 'failure',
    ...T.refreshMissed(m.name, m.workspaceName, slot.toISOString(), graceMinutes, why),
    causes,
  };
}

export function staleModelSignal(id: string, m: ModelState, kind: 'failure' | 'recovery', now: Date, age: { age: number | null; maxAge: number } | null, causes: { sourceType: string; sourceId: string }[]): SignalInput {
  const b = { ...base(id, m, DATA_STALE, now), kind };
  if (kind === 'recovery') {
    return { ...b, ...T.modelFresh(m.name, age ? { ageMs: age.age ?? 0, maxAge: age.maxAge } : null) };
  }
  return { ...b, ...T.modelStale(m.name, m.workspaceName, age?.maxAge, age?.age ?? null), causes };
}

export function staleTableSignal(dbId: string, db: MirrorState, table: string, kind: 'failure' | 'recovery', now: Date, age: { age: number | null; maxAge: number } | null, causes: { sourceType: string; sourceId: string }[]): SignalInput {
  const name = `${db.name} / ${table}`;
  const b = { sourceType: FRESHNESS_SOURCE, sourceId: tableId(dbId, table), sourceName: name, notificationKind: DATA_STALE, severity: 'error' as const, workspaceName: db.workspaceName, occurredAt: now, kind };
  if (kind === 'recovery') {
    return { ...b, ...T.tableFresh(name, age ? { ageMs: age.age ?? 0, maxAge: age.maxAge } : null) };
  }
  return { ...b, ...T.tableStale(name, db.workspaceName, age?.maxAge, age?.age ?? null), causes };
}

/** A model no longer watched: its open incidents recover. */
export function modelGoneSignals(id: string, m: ModelState, now: Date): SignalInput[] {
  const gone = { kind: 'recovery' as const, ...T.semanticModelGone(m.name) };
  const out: SignalInput[] = [];
  if (m.missedSlot) out.push({ ...base(id, m, REFRESH_MISSED, now), ...gone });
  if (m.stale) out.push({ ...base(id, m, DATA_STALE, now), ...gone });
  return out;
}

export function mirrorGoneSignals(id: string, db: MirrorState, now: Date): SignalInput[] {
  return db.staleTables.map((t) => ({ ...staleTableSignal(id, db, t, 'recovery', now, null, []), ...T.mirroredTableGone(`${db.name} / ${t}`) }));
}
