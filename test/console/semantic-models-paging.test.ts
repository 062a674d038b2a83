/**
 * The semantic-models view is paged (GET …/semantic-models: `limit`, `after`, `search`), so it
 * answers in the same time at 200,000 models as at 20 (bench: `npm run bench -- models-view`).
 * Following `nextCursor` from the first page to the last yields every model of the organization
 * once, in the view's order (name in byte order, then id, then the tenant connection's id), across the
 * organization's tenant connections and never another organization's; bad paging input is a 400
 * with the error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { savePlacements, saveDatasources } from '../../src/monitoring/lineage/lineage.js';
import { writeState } from '../../src/monitoring/engine/output.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { tenantBody } from '../monitoring/support.js';

interface ModelItem {
  id: string;
  name: string;
  tenantName: string;
  gateways: Array<{ id: string; name: string | null }>;
  openIncidents: number;
}

describe('the semantic-models view, paged', () => {
  let t: TestApp;
  let orgId: string;
  /** Every model of the organization as [name, id, tenant name], in the order the view must give. */
  let expected: Array<[string, string, string]>;

  async function connect(org: string, name: string): Promise<string> {
    const res = await t.admin('POST', `/orgs/${org}/tenants`, tenantBody({ name }));
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function walk(query: string): Promise<{ pages: ModelItem[][]; items: ModelItem[] }> {
    const pages: ModelItem[][] = [];
    let after: string | null = null;
    do {
      const qs = after === null ? query : `${query}&after=${encodeURIComponent(after)}`;
      const res = await t.admin('GET', `/orgs/${orgId}/semantic-models?${qs}`);
      expect(res.statusCode, res.body).toBe(200);
      pages.push(res.json().items);
      after = res.json().nextCursor;
      expect(pages.length).toBeLessThan(1000);
    } while (after !== null);
    return { pages, items: pages.flat() };
  }

  beforeAll(async () => {
    t = await createTestApp();
    const now = t.ctx.clock.now();
    orgId = (await t.admin('POST', '/orgs', { name: 'Modelos' })).json().id;
    const a = await connect(orgId, 'Contoso A');
    const b = await connect(orgId, 'Contoso B');
    // 120 models in A and 95 in B; names repeat (and differ only in case) so ties must be broken by id, then tenant.
    const names = (i: number) => [`Vendas ${String(i % 40).padStart(2, '0')}`, `vendas ${i % 7}`, `Ágil ${i % 3}`][i % 3]!;
    const inA = Array.from({ length: 120 }, (_, i) => ({ itemId: `SM-${String(i).padStart(3, '0')}`, itemType: 'SemanticModel', itemName: names(i), workspaceId: 'ws-1', capacityId: null }));
    const inB = Array.from({ length: 95 }, (_, i) => ({ itemId: `sm-${String(i * 2).padStart(3, '0')}`, itemType: 'SemanticModel', itemName: names(i + 1), workspaceId: 'ws-2', capacityId: null }));
    await savePlacements(t.ctx.db, a, [...inA, { itemId: 'rep-1', itemType: 'Report', itemName: 'Relatório', workspaceId: 'ws-1', capacityId: null }], now);
    await savePlacements(t.ctx.db, b, inB, now);
    await writeState(t.ctx.db, a, 'gateway', [{ key: 'gateway:gw-a', value: { name: 'GW Matriz', offline: true, upgrade: false } }]);
    await saveDatasources(t.ctx.db, a, 'SM-007', ['GW-A'], ['src-1'], now);
    const open = await t.admin('POST', `/orgs/${orgId}/signals`, {
      kind: 'failure', notificationKind: 'RefreshFailed', title: 'Falha', message: 'Falhou', sourceType: 'Dataset', sourceId: 'SM-007', sourceName: names(7),
    });
    expect(open.statusCode, open.body).toBe(200);
    const other = (await t.admin('POST', '/orgs', { name: 'Outra' })).json().id;
    await savePlacements(t.ctx.db, await connect(other, 'Fabrikam'), [{ itemId: 'sm-x', itemType: 'SemanticModel', itemName: 'Vendas 01', workspaceId: 'ws-9', capacityId: null }], now);
    const byteOrder = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));
    // Ties of name and id are broken by the tenant connection's id.
    const ref = (tenantName: string) => (tenantName === 'Contoso A' ? a : b);
    expected = [
      ...inA.map((m) => [m.itemName, m.itemId.toLowerCase(), 'Contoso A'] as [string, string, string]),
      ...inB.map((m) => [m.itemName, m.itemId.toLowerCase(), 'Contoso B'] as [string, string, string]),
    ].sort((x, y) => byteOrder(x[0], y[0]) || byteOrder(x[1], y[1]) || byteOrder(ref(x[2]), ref(y[2])));
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('following nextCursor yields every model of the organization once, in name order, 100 at a time by default', async () => {
    const { pages, items } = await walk('');
    expect(pages.map((p) => p.length)).toEqual([100, 100, 15]);
    expect(items.map((m) => [m.name, m.id, m.tenantName])).toEqual(expected);
  });

  it('a page carries its models’ gateway names and open incidents', async () => {
    const { items } = await walk('limit=500');
    const sm7 = items.find((m) => m.id === 'sm-007' && m.tenantName === 'Contoso A')!;
    expect(sm7.gateways).toEqual([{ id: 'gw-a', name: 'GW Matriz' }]);
    expect(sm7.openIncidents).toBe(1);
    expect(items.filter((m) => m.openIncidents > 0)).toHaveLength(1);
  });

  it('pages of any size meet without a gap or a repeat, also where names and ids tie across tenant connections', async () => {
    for (const limit of [1, 7, 33]) {
      const { items } = await walk(`limit=${limit}`);
      expect(items.map((m) => [m.name, m.id, m.tenantName])).toEqual(expected);
    }
  });

  it('search keeps the models whose name contains the text, case-insensitively, paged the same way', async () => {
    const { items } = await walk('search=VENDAS%200&limit=10');
    const want = expected.filter(([name]) => name.toLowerCase().includes('vendas 0'));
    expect(want.length).toBeGreaterThan(10);
    expect(items.map((m) => [m.name, m.id, m.tenantName])).toEqual(want);
  });

  it('bad paging input is a 400 with the error envelope', async () => {
    const forged = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const qs of [
      'limit=0',
      'limit=501',
      'limit=abc',
      'after=not-a-cursor',
      `after=${forged({ name: 'x' })}`,
      `after=${forged(['x', 1, 'y'])}`,
      `after=${forged(['a\u0000b', 'id', 'tnt'])}`,
      `after=${forged(['\ud800', 'id', 'tnt'])}`,
      `search=${'x'.repeat(201)}`,
      'order=name',
    ]) {
      const res = await t.admin('GET', `/orgs/${orgId}/semantic-models?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error.code, qs).toBe('invalid_request');
    }
    expect((await t.admin('GET', '/orgs/org_missing/semantic-models')).statusCode).toBe(404);
  });
});
