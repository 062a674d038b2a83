/**
 * Where collected facts go: signals into the alert lifecycle, the collector's remembered state,
 * the lineage it read and the writes it staged (reader.ts), written in ONE transaction, and only while the run still holds its
 * schedule row (lease.ts's fence). A run that dies before the commit, or lost its lease, wrote
 * nothing and the next run sees the same transitions again; a run that committed never signals
 * them twice.
 */
import { joinIncidents } from '../changes/join.js';
import type { OpenedHook } from '../../alerts/batch-store.js';
import type { AppContext } from '../../context.js';
import type { Queryable } from '../../db/index.js';
import { applySignalsIn as applyLifecycleSignals, type SignalOutcome } from '../../alerts/lifecycle.js';
import { txWithRetry } from '../../db/retry.js';
import { hasTexts, inLanguage, validateSignal, type SignalInput } from '../../alerts/signals.js';
import { DEFAULT_LANGUAGE, orgLanguage } from '../../orgs/language.js';
import { countFirstPassFindings, endFirstPass, FOUND_AT_CONNECTION, startFirstPass } from './first-pass.js';
import { holdLease, type Lease } from './lease.js';
import { CATALOG_ROTATION_KEY, firstPassGoesOnIn, ROTATION_KEY } from './rotation.js';
import { writeLineage, type LineageChanges } from '../lineage/lineage.js';
import { type FencedWrite, type Reader, readerOf } from './reader.js';

export interface StateChange {
  key: string;
  /** null deletes the remembered state of the key. */
  value: unknown | null;
}

type Ctx = Pick<AppContext, 'db' | 'clock' | 'config'>;

/**
 * Validates the collector's signals and applies them inside the caller's transaction (the
 * lifecycle's batch). This is where a collected title and message, written in every language
 * (titles.ts), become the organization's language: the one place that choice is made.
 */
export async function applySignalsIn(
  q: Queryable, ctx: Ctx, orgId: string, inputs: SignalInput[], now: Date, quietReason: string | null = null, onOpened?: OpenedHook,
): Promise<SignalOutcome[]> {
  const language = hasTexts(inputs) ? await orgLanguage(q, orgId) : DEFAULT_LANGUAGE;
  const signals = inputs.map(({ restatesMessage, ...s }, i) => ({ ...validateSignal(inLanguage(s, language), `signals[${i}]`, now), ...(restatesMessage ? { restatesMessage } : {}) }));
  return applyLifecycleSignals(q, ctx, orgId, signals, now, quietReason, onOpened);
}

/**
 * Writes a collector's state changes. `updated_at` is the database's clock (the transaction's
 * time), never an instance's: it is compared across instances (the scan catalog's versions,
 * scan-catalog.ts), and instances' clocks differ.
 */
export async function writeState(q: Queryable, tenantRef: string, collector: string, changes: StateChange[]): Promise<void> {
  const upserts = changes.filter((c) => c.value !== null);
  const deletes = changes.filter((c) => c.value === null).map((c) => c.key);
  if (upserts.length > 0) {
    await q.query(
      `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at)
       SELECT $1, $2, k, v::jsonb, now() FROM unnest($3::text[], $4::text[]) AS u(k, v)
       ON CONFLICT (tenant_ref, collector, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
      [tenantRef, collector, upserts.map((c) => c.key), upserts.map((c) => JSON.stringify(c.value))],
    );
  }
  if (deletes.length > 0) {
    await q.query('DELETE FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND key = ANY($3::text[])', [tenantRef, collector, deletes]);
  }
}

/** Rows a state read takes at a time: a large tenant's state is never one result in memory. */
const STATE_PAGE = 5_000;

/**
 * A keyed read page by page in key order: `read(after)` returns at most `page` rows whose key
 * is after `after`, ordered by key. Yields each non-empty page.
 */
export async function* pagesByKey<R extends { key: string }>(read: (after: string) => Promise<R[]>, page: number): AsyncGenerator<R[]> {
  let after = '';
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) yield rows;
    if (rows.length < page) return;
    after = rows[rows.length - 1]!.key;
  }
}

/** key > $3, starts with $4 (any prefix when empty), in key order, one page. */
const UNDER_PREFIX = `WHERE tenant_ref = $1 AND collector = $2 AND key > $3 AND starts_with(key, $4) ORDER BY key LIMIT ${STATE_PAGE}`;

/**
 * The collector's remembered state, every key but those under `except` (the per-entity keys a
 * collector reads on demand through EntityState). Read in pages by key, so the driver never
 * holds a whole large state as one result beside the map it becomes.
 */
export async function readState<T>(q: Pick<Queryable, 'query'>, tenantRef: string, collector: string, except: readonly string[] = []): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const pages = pagesByKey(async (after) => {
    const { rows } = await q.query<{ key: string; value: T }>(
      `SELECT key, value FROM collector_state
        WHERE tenant_ref = $1 AND collector = $2 AND key > $3
          AND NOT EXISTS (SELECT 1 FROM unnest($4::text[]) AS p(prefix) WHERE starts_with(key, p.prefix))
        ORDER BY key LIMIT ${STATE_PAGE}`,
      [tenantRef, collector, after, except],
    );
    return rows;
  }, STATE_PAGE);
  for await (const rows of pages) for (const r of rows) out.set(r.key, r.value);
  return out;
}

/**
 * A collector's per-entity state (one key per model or workspace, Collector.entityPrefixes), read
 * on demand: a run over a slice of a large tenant loads that slice, not every entity it ever saw.
 * Writes still go through the run's commit (StateChange), fenced by its lease.
 */
export class EntityState {
  constructor(
    private readonly q: Queryable,
    private readonly tenantRef: string,
    private readonly collector: string,
  ) {}

  /** The values of these keys that exist. */
  async read<T>(keys: readonly string[]): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    for (let i = 0; i < keys.length; i += STATE_PAGE) {
      const { rows } = await this.q.query<{ key: string; value: T }>(
        'SELECT key, value FROM collector_state WHERE tenant_ref = $1 AND collector = $2 AND key = ANY($3::text[])',
        [this.tenantRef, this.collector, keys.slice(i, i + STATE_PAGE)],
      );
      for (const r of rows) out.set(r.key, r.value);
    }
    return out;
  }

  /** Every key under the prefix (no values). */
  async keys(prefix: string): Promise<string[]> {
    const out: string[] = [];
    for await (const rows of this.under<{ key: string }>('key', prefix)) for (const r of rows) out.push(r.key);
    return out;
  }

  /** Every key and value under the prefix (a small tenant's whole set, or member mode's). */
  async all<T>(prefix: string): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    for await (const rows of this.under<{ key: string; value: T }>('key, value', prefix)) for (const r of rows) out.set(r.key, r.value);
    return out;
  }

  /**
   * Every key under the prefix with only the named fields of its value (dotted paths, e.g.
   * `meta.scheduled`; a missing one is null): the compact rows a run judges every entity by,
   * while it reads whole values (read) only for the few it changes.
   */
  async fields(prefix: string, paths: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>();
    const pages = pagesByKey(async (after) => {
      const { rows } = await this.q.query<{ key: string; value: Record<string, unknown> }>(
        `SELECT key, (SELECT jsonb_object_agg(p.path, s.value #> string_to_array(p.path, '.')) FROM unnest($5::text[]) AS p(path)) AS value
           FROM collector_state s ${UNDER_PREFIX}`,
        [this.tenantRef, this.collector, after, prefix, paths],
      );
      return rows;
    }, STATE_PAGE);
    for await (const rows of pages) for (const r of rows) out.set(r.key, r.value);
    return out;
  }

  /** How many keys the prefix has; with `flag`, only those whose value has that field true. */
  async count(prefix: string, flag: string | null = null): Promise<number> {
    const { rows } = await this.q.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM collector_state
        WHERE tenant_ref = $1 AND collector = $2 AND starts_with(key, $3) AND ($4::text IS NULL OR value->>$4::text = 'true')`,
      [this.tenantRef, this.collector, prefix, flag],
    );
    return Number(rows[0]?.n ?? 0);
  }

  private under<R extends { key: string }>(columns: 'key' | 'key, value', prefix: string): AsyncGenerator<R[]> {
    return pagesByKey(async (after) => (await this.q.query<R>(`SELECT ${columns} FROM collector_state ${UNDER_PREFIX}`, [this.tenantRef, this.collector, after, prefix])).rows, STATE_PAGE);
  }
}

/**
 * What a run may do with the database besides its state (CollectorRun.reader, .write): read
 * through a read-only handle, and stage writes that its one commit applies after the fence.
 */
export class RunAccess {
  readonly reader: Reader;
  private readonly writes: FencedWrite[] = [];
  committed = false;

  constructor(db: Pick<Queryable, 'query'>) {
    this.reader = readerOf(db);
  }

  readonly write = (w: FencedWrite): void => {
    if (this.committed) throw new Error('a write after the commit is never applied');
    this.writes.push(w);
  };

  /** Writes staged and not committed yet. */
  get staged(): boolean {
    return !this.committed && this.writes.length > 0;
  }

  /** The staged writes, for the run's one commit. */
  commit(): FencedWrite[] {
    if (this.committed) throw new Error('a run commits once');
    this.committed = true;
    return this.writes;
  }
}

/** What one run hands to its commit. */
export interface RunOutput {
  signals: SignalInput[];
  changes: StateChange[];
  lineage?: LineageChanges;
  /** The collector has not seen the tenant whole yet: a first pass goes on in a later run (collector.ts). */
  firstPassGoesOn?: boolean;
  /** The source's own tables (capacity load history, hot marks, inventory, costs), written after the fence. */
  writes?: readonly FencedWrite[];
}

/**
 * A rotating collector's first pass is its first complete pass (rotation.ts, firstPassDone): a
 * run that commits a rotation whose first pass goes on leaves the tenant's first pass open.
 */
function rotationGoesOn(changes: StateChange[]): boolean {
  return changes.some((c) => (c.key === ROTATION_KEY || c.key === CATALOG_ROTATION_KEY) && firstPassGoesOnIn(c.value));
}

/**
 * What changed before it broke: the incidents a run opens are tagged with its tenant and joined
 * to the tenant's stored changes before their opening events are written (the payload names the
 * changes: activity, object, time).
 */
function joinOpened(orgId: string, tenantRef: string, now: Date): OpenedHook {
  return async (q, ids) => {
    await q.query('UPDATE alerts SET tenant_ref = $1 WHERE org_id = $2 AND id = ANY($3::text[])', [tenantRef, orgId, ids]);
    await joinIncidents(q, orgId, ids, now);
  };
}

/** Marks the run's incidents as its tenant's (the admin alert list filters by it). */
async function tagTenant(q: Queryable, orgId: string, tenantRef: string, outcomes: SignalOutcome[]): Promise<void> {
  const ids = outcomes.map((o) => o.alertId).filter((id): id is string => id !== null);
  if (ids.length === 0) return;
  await q.query('UPDATE alerts SET tenant_ref = $1 WHERE org_id = $2 AND id = ANY($3::text[]) AND tenant_ref IS DISTINCT FROM $1', [tenantRef, orgId, ids]);
}

/**
 * One run's output, committed together under its lease: the schedule row first (the fence;
 * throws LeaseLostError when the run no longer holds it), then the source's staged writes, then
 * all incident keys in one order.
 * A collector's first pass of a new tenant (first-pass.ts) locks the tenant row before the
 * fence, opens its incidents silenced "found at connection", and ends the pass in this commit —
 * unless the collector says it goes on, or commits a rotation whose first complete pass goes on.
 */
export async function commitRun(ctx: Ctx, orgId: string, lease: Lease, output: RunOutput): Promise<SignalOutcome[]> {
  const now = ctx.clock.now();
  return txWithRetry(ctx.db, async (q) => {
    const first = await startFirstPass(q, lease);
    await holdLease(q, lease);
    // Before the signals: a write that touches another schedule row (a hot mark asks the gateway
    // collector to run now) takes that row's lock ahead of any incident lock, as every commit does.
    for (const write of output.writes ?? []) await write(q);
    const out = await applySignalsIn(q, ctx, orgId, output.signals, now, first?.quiet ? FOUND_AT_CONNECTION : null, joinOpened(orgId, lease.tenantRef, now));
    await tagTenant(q, orgId, lease.tenantRef, out);
    await writeState(q, lease.tenantRef, lease.collector, output.changes);
    if (output.lineage) await writeLineage(q, lease.tenantRef, output.lineage, now);
    if (first && (output.firstPassGoesOn || rotationGoesOn(output.changes))) {
      await countFirstPassFindings(q, lease, out);
    } else if (first) {
      const connected = await endFirstPass(q, lease, out, now, ctx.config.baseUrl);
      if (connected) await tagTenant(q, orgId, lease.tenantRef, await applySignalsIn(q, ctx, orgId, [connected], now));
    }
    return out;
  });
}
