/** Inventory and costs fed by the monitoring core (docs/admin-api.md): replace-all sets and an upsert. */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { invalidInput } from '../errors.js';
import { requireOrg } from './orgs.js';
import { DATE_RANGE_TEXT } from '../date-rule.js';
import { isCalendarDay } from './validation.js';

type Ctx = Pick<AppContext, 'db'>;
/** What the reads need: a statement at a time (a collector's read-only handle will do). */
type Reads = Pick<Queryable, 'query'>;

export interface Capacity {
  name: string;
  sku: string;
  state: string;
  region: string;
  /** Its Azure resource name, which Cost Management's rows carry (the inventory collector's join; absent from the admin and public lists' shape). */
  armName?: string | null;
}

export interface Workspace {
  name: string;
  remoteId: string;
  capacityName: string | null;
}

export interface DailyCost {
  date: string;
  capacityName: string;
  currency: string;
  cost: number;
  amortizedCost: number;
  overageCost: number;
}

function duplicates<T>(items: T[], key: (item: T) => string, what: string): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) throw invalidInput(`[${i}]: duplicate ${what}`);
    seen.add(k);
  });
}

/** Replaces the organization's capacities with `items`, in one transaction. */
export async function replaceCapacities(ctx: Ctx, orgId: string, items: Capacity[]): Promise<Capacity[]> {
  await ctx.db.tx((q) => replaceCapacitiesIn(q, orgId, items));
  return listCapacities(ctx, orgId);
}

/** The same, inside the caller's transaction (the inventory collector's commit). */
export async function replaceCapacitiesIn(q: Queryable, orgId: string, items: Capacity[]): Promise<void> {
  duplicates(items, (c) => c.name, 'capacity name');
  await requireOrg(q, orgId);
  await q.query('DELETE FROM capacities WHERE org_id = $1', [orgId]);
  if (items.length === 0) return;
  await q.query(
    `INSERT INTO capacities (org_id, name, sku, state, region, arm_name)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [orgId, items.map((c) => c.name), items.map((c) => c.sku), items.map((c) => c.state), items.map((c) => c.region), items.map((c) => c.armName ?? null)],
  );
}

export async function listCapacities(ctx: Ctx, orgId: string): Promise<Capacity[]> {
  return (await capacitiesOf(ctx.db, orgId)).map(({ armName: _arm, ...c }) => c);
}

/** The organization's capacities with their ARM names (null where unknown). */
export async function capacitiesOf(q: Reads, orgId: string): Promise<Capacity[]> {
  const { rows } = await q.query<Capacity>('SELECT name, sku, state, region, arm_name AS "armName" FROM capacities WHERE org_id = $1 ORDER BY name', [orgId]);
  return rows;
}

/** Replaces the organization's workspaces with `items`, in one transaction. */
export async function replaceWorkspaces(ctx: Ctx, orgId: string, items: Workspace[]): Promise<Workspace[]> {
  await ctx.db.tx((q) => replaceWorkspacesIn(q, orgId, items));
  return listWorkspaces(ctx, orgId);
}

/** The same, inside the caller's transaction (the inventory collector's commit). */
export async function replaceWorkspacesIn(q: Queryable, orgId: string, items: Workspace[]): Promise<void> {
  duplicates(items, (w) => w.remoteId, 'workspace remoteId');
  await requireOrg(q, orgId);
  await q.query('DELETE FROM workspaces WHERE org_id = $1', [orgId]);
  if (items.length === 0) return;
  await q.query(
    `INSERT INTO workspaces (org_id, name, remote_id, capacity_name)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])`,
    [orgId, items.map((w) => w.name), items.map((w) => w.remoteId), items.map((w) => w.capacityName ?? null)],
  );
}

export function listWorkspaces(ctx: Ctx, orgId: string): Promise<Workspace[]> {
  return workspacesOf(ctx.db, orgId);
}

export async function workspacesOf(q: Reads, orgId: string): Promise<Workspace[]> {
  const { rows } = await q.query<Workspace>(
    `SELECT name, remote_id AS "remoteId", capacity_name AS "capacityName" FROM workspaces WHERE org_id = $1 ORDER BY name, remote_id`,
    [orgId],
  );
  return rows;
}

/** Refuses days that are not real ones and items repeated on (date, capacityName, currency). */
function checkCosts(items: DailyCost[]): void {
  items.forEach((c, i) => {
    if (!isCalendarDay(c.date)) throw invalidInput(`[${i}].date must be a real day as yyyy-MM-dd, ${DATE_RANGE_TEXT}`);
  });
  duplicates(items, (c) => `${c.date}|${c.capacityName}|${c.currency}`, '(date, capacityName, currency)');
}

/**
 * Upserts daily costs on (date, capacityName, currency). Duplicates inside one request are
 * refused (PostgreSQL cannot upsert the same row twice in one statement, and which one wins
 * would be arbitrary). Numbers are passed as text so no precision is lost on the way in.
 */
export async function upsertCosts(ctx: Ctx, orgId: string, items: DailyCost[]): Promise<{ upserted: number }> {
  checkCosts(items);
  if (items.length === 0) {
    await requireOrg(ctx.db, orgId);
    return { upserted: 0 };
  }
  await ctx.db.tx((q) => upsertCostsIn(q, orgId, items));
  return { upserted: items.length };
}

/** The same, inside the caller's transaction (the costs collector's commit). */
export async function upsertCostsIn(q: Queryable, orgId: string, items: DailyCost[]): Promise<void> {
  checkCosts(items);
  await requireOrg(q, orgId);
  if (items.length === 0) return;
  await q.query(
    `INSERT INTO daily_costs (org_id, date, capacity_name, currency, cost, amortized_cost, overage_cost)
     SELECT $1, d::date, n, c, v::numeric, a::numeric, o::numeric
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u(d, n, c, v, a, o)
     ON CONFLICT (org_id, date, capacity_name, currency) DO UPDATE
       SET cost = EXCLUDED.cost, amortized_cost = EXCLUDED.amortized_cost, overage_cost = EXCLUDED.overage_cost`,
    [
      orgId,
      items.map((c) => c.date),
      items.map((c) => c.capacityName),
      items.map((c) => c.currency),
      items.map((c) => String(c.cost)),
      items.map((c) => String(c.amortizedCost)),
      items.map((c) => String(c.overageCost)),
    ],
  );
}
