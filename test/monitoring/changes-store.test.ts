/**
 * The stored changes of a tenant's activity log (migration 401, src/monitoring/changes/store.ts):
 * a record is stored once per tenant connection, the timeline pages newest first with a cursor
 * and filters, the actor comes back only when asked, reads stay inside the organization, the
 * join finds changes through linked ids, and the retention forgets old rows. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import {
  changesTouching,
  decodeChangeCursor,
  deleteChangesBefore,
  insertChanges,
  listChanges,
  type TenantChange,
} from '../../src/monitoring/changes/store.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { insertOrg } from './support.js';

async function insertTenant(ctx: TestContext, orgId: string): Promise<string> {
  const id = newId('tnt');
  const now = ctx.clock.now();
  await ctx.db.query(
    `INSERT INTO tenants (id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, endpoints, created_at, updated_at)
     VALUES ($1, $2, 'Contoso', 't', 'c', 'secret', 'x', 'admin', '{}', $3, $3)`,
    [id, orgId, now],
  );
  return id;
}

const NO_LINKS = { datasetId: null, gatewayId: null, datasourceId: null, workspaceId: null, capacityId: null };

function change(id: string, at: string, over: Partial<TenantChange> = {}): TenantChange {
  return {
    recordId: id,
    activity: 'UpdateDatasourceCredentials',
    occurredAt: new Date(at),
    object: { kind: 'gateway', id: 'GW-1', type: null, name: 'Gateway 1' },
    links: { datasetId: null, gatewayId: 'GW-1', datasourceId: 'ds-1', workspaceId: null, capacityId: null },
    isSuccess: true,
    actorUpn: 'ana@contoso.com',
    actorType: 0,
    raw: { Id: id, Activity: 'UpdateDatasourceCredentials' },
    ...over,
  };
}

describe('tenant changes store', () => {
  let ctx: TestContext;
  let orgId: string;
  let otherOrg: string;
  let tenant: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    orgId = await insertOrg(ctx);
    otherOrg = await insertOrg(ctx, 'Other');
    tenant = await insertTenant(ctx, orgId);
  });
  afterAll(async () => ctx.close());

  it('stores a record once, pages newest first, filters, and withholds the actor unless asked', async () => {
    const got = new Date('2026-11-20T12:00:00Z');
    const first = await insertChanges(ctx.db, orgId, tenant, [
      change('A-1', '2026-11-20T10:00:00Z'),
      change('a-2', '2026-11-20T10:05:00Z', { activity: 'BindToGateway', object: { kind: 'item', id: 'DS-9', type: 'SemanticModel', name: 'Sales' } }),
      change('a-3', '2026-11-20T10:05:00Z', { activity: 'UpdatedAdminFeatureSwitch', object: { kind: 'tenant', id: null, type: null, name: null }, links: NO_LINKS }),
    ], got);
    expect(first.sort()).toEqual(['a-1', 'a-2', 'a-3']);
    const again = await insertChanges(ctx.db, orgId, tenant, [change('a-1', '2026-11-20T10:00:00Z'), change('a-4', '2026-11-20T09:00:00Z')], got);
    expect(again).toEqual(['a-4']);

    const p1 = await listChanges(ctx.db, orgId, tenant, { limit: 2, withActor: false });
    expect(p1.items.map((c) => c.recordId)).toEqual(['a-3', 'a-2']);
    expect(p1.items.every((c) => c.actorUpn === null)).toBe(true);
    const p2 = await listChanges(ctx.db, orgId, tenant, { limit: 2, after: decodeChangeCursor(p1.nextCursor!), withActor: true });
    expect(p2.items.map((c) => c.recordId)).toEqual(['a-1', 'a-4']);
    expect(p2.items[0]!.actorUpn).toBe('ana@contoso.com');
    expect(p2.nextCursor).toBeNull();

    const items = await listChanges(ctx.db, orgId, tenant, { limit: 10, objectKind: 'item', objectId: 'ds-9', withActor: false });
    expect(items.items.map((c) => c.recordId)).toEqual(['a-2']);
    const byActivity = await listChanges(ctx.db, orgId, tenant, { limit: 10, activity: 'bindtogateway', withActor: false });
    expect(byActivity.items.map((c) => c.recordId)).toEqual(['a-2']);
    const window = await listChanges(ctx.db, orgId, tenant, { limit: 10, from: new Date('2026-11-20T09:30:00Z'), to: new Date('2026-11-20T10:05:00Z'), withActor: false });
    expect(window.items.map((c) => c.recordId)).toEqual(['a-1']);
    const foreign = await listChanges(ctx.db, otherOrg, tenant, { limit: 10, withActor: true });
    expect(foreign.items).toEqual([]);

    const touching = await changesTouching(ctx.db, orgId, tenant, { gatewayIds: ['gw-1'] }, new Date('2026-11-20T00:00:00Z'), new Date('2026-11-21T00:00:00Z'));
    expect(touching.map((c) => c.recordId)).toEqual(['a-4', 'a-1', 'a-2']);
    const tenantWide = await changesTouching(ctx.db, orgId, tenant, { tenantWide: true }, new Date('2026-11-20T00:00:00Z'), new Date('2026-11-21T00:00:00Z'));
    expect(tenantWide.map((c) => c.recordId)).toEqual(['a-3']);

    expect(await deleteChangesBefore(ctx.db, tenant, new Date('2026-11-20T10:00:00Z'))).toBe(1);
    const rest = await listChanges(ctx.db, orgId, tenant, { limit: 10, withActor: false });
    expect(rest.items.map((c) => c.recordId)).toEqual(['a-3', 'a-2', 'a-1']);
  });

  it('refuses a forged cursor', () => {
    expect(decodeChangeCursor('nope')).toBeNull();
    expect(decodeChangeCursor(Buffer.from(JSON.stringify(['2026-01-01', 'x'])).toString('base64url'))).toBeNull();
  });
});
