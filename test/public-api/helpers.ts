import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Queryable } from '../../src/db/index.js';
import { newId, randomBase62 } from '../../src/ids.js';
import { generateApiKey } from '../../src/secrets/tokens.js';
import { SCOPES } from '../../src/public-api/auth.js';

/** Direct-SQL fixtures for the public API: exact timestamps for hand-computed expectations. */

export const ALL_SCOPES = [...SCOPES];

export async function insertOrg(
  db: Queryable,
  o: { name?: string; suspended?: boolean; mtta?: number; mttr?: number; availability?: number } = {},
): Promise<string> {
  const id = `org_${randomBase62(12)}`;
  await db.query(
    `INSERT INTO orgs (id, name, suspended, escalation_minutes, sla_mtta_minutes, sla_mttr_minutes,
                       sla_availability_percent, created_at, updated_at)
     VALUES ($1, $2, $3, 30, $4, $5, $6, now(), now())`,
    [id, o.name ?? id, o.suspended ?? false, o.mtta ?? 15, o.mttr ?? 240, o.availability ?? 99.9],
  );
  return id;
}

export async function insertKey(
  db: Queryable,
  orgId: string,
  scopes: string[] = ALL_SCOPES,
  o: { expiresAt?: Date; revokedAt?: Date } = {},
): Promise<{ key: string; id: string; prefix: string }> {
  const { key, prefix, hash } = generateApiKey();
  const id = newId('key');
  await db.query(
    `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, scopes, expires_at, created_at, revoked_at)
     VALUES ($1, $2, 'test', $3, $4, $5, $6, now(), $7)`,
    [id, orgId, prefix, hash, scopes, o.expiresAt ?? null, o.revokedAt ?? null],
  );
  return { key, id, prefix };
}

export interface AlertRow {
  sourceType?: string;
  sourceId?: string;
  sourceName?: string;
  notificationKind?: string;
  severity?: string;
  title?: string;
  message?: string;
  workspaceName?: string | null;
  capacityName?: string | null;
  status?: 'open' | 'resolved';
  createdAt: string;
  acknowledgedAt?: string | null;
  resolvedAt?: string | null;
  failureCount?: number;
  lastOccurrenceAt?: string;
  silenced?: boolean;
  correlated?: boolean;
  id?: string;
}

export async function insertAlert(db: Queryable, orgId: string, a: AlertRow): Promise<string> {
  const id = a.id ?? newId('alr');
  const status = a.status ?? (a.resolvedAt ? 'resolved' : 'open');
  await db.query(
    `INSERT INTO alerts (id, org_id, source_type, source_id, source_name, notification_kind, severity, title, message,
        workspace_name, capacity_name, status, acknowledged, acknowledged_at, created_at, resolved_at, failure_count,
        last_occurrence_at, silenced, correlated, updated_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$15)`,
    [
      id,
      orgId,
      a.sourceType ?? 'Gateway',
      a.sourceId ?? `src-${randomBase62(6)}`,
      a.sourceName ?? 'gw-1',
      a.notificationKind ?? 'GatewayOffline',
      a.severity ?? 'error',
      a.title ?? 'title',
      a.message ?? 'message',
      a.workspaceName ?? null,
      a.capacityName ?? null,
      status,
      a.acknowledgedAt != null,
      a.acknowledgedAt ?? null,
      a.createdAt,
      a.resolvedAt ?? null,
      a.failureCount ?? 1,
      a.lastOccurrenceAt ?? a.createdAt,
      a.silenced ?? false,
      a.correlated ?? false,
    ],
  );
  return id;
}

export async function insertCapacity(db: Queryable, orgId: string, name: string, extra: Partial<{ sku: string; state: string; region: string }> = {}) {
  await db.query('INSERT INTO capacities (org_id, name, sku, state, region) VALUES ($1,$2,$3,$4,$5)', [
    orgId,
    name,
    extra.sku ?? 'F64',
    extra.state ?? 'Active',
    extra.region ?? 'brazilsouth',
  ]);
}

export async function insertWorkspace(db: Queryable, orgId: string, name: string, remoteId: string, capacityName: string | null = null) {
  await db.query('INSERT INTO workspaces (org_id, remote_id, name, capacity_name) VALUES ($1,$2,$3,$4)', [orgId, remoteId, name, capacityName]);
}

export async function insertCost(
  db: Queryable,
  orgId: string,
  c: { date: string; capacityName: string; currency: string; cost: number; amortizedCost?: number; overageCost?: number },
) {
  await db.query(
    `INSERT INTO daily_costs (org_id, date, capacity_name, currency, cost, amortized_cost, overage_cost)
     VALUES ($1, $2::date, $3, $4, $5, $6, $7)`,
    [orgId, c.date, c.capacityName, c.currency, c.cost, c.amortizedCost ?? c.cost, c.overageCost ?? 0],
  );
}

/** GET a public-API path with a key in X-Api-Key (or no key). */
export function get(
  app: FastifyInstance,
  url: string,
  key?: string,
  headers: Record<string, string> = {},
  remoteAddress?: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'GET',
    url: url.startsWith('/api/') ? url : `/api/public/v1${url}`,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

/** Asserts the error envelope { error: { code, message } } and no-store; returns the error object. */
export function errorOf(res: LightMyRequestResponse): { code: string; message: string } {
  const body = res.json() as { error: { code: string; message: string } };
  if (res.headers['cache-control'] !== 'no-store') throw new Error(`missing no-store on ${res.statusCode}`);
  if (!body.error || typeof body.error.code !== 'string' || typeof body.error.message !== 'string' || Object.keys(body).length !== 1) {
    throw new Error(`not the error envelope: ${res.body}`);
  }
  return body.error;
}

/** Runs `tasks` with at most `width` in flight at once; results in task order. */
export async function inParallel<T>(tasks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

/** How many answers had each status code, e.g. { 401: 10, 429: 20 }. */
export function countStatuses(responses: Array<{ statusCode: number }>): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1;
  return counts;
}
