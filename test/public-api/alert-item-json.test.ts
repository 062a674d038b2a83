import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledgeAlert, resolveAlert } from '../../src/alerts/lifecycle.js';
import { alertColumns } from '../../src/alerts/rows.js';
import { ManualClock } from '../../src/clock.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { get, insertAlert, insertKey, insertOrg } from './helpers.js';

const NOW = '2026-06-15T12:00:00.000Z';

/** The item as the API promises it, written by JSON.stringify from the row's values. */
function expectedItem(r: Record<string, any>): string {
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  return JSON.stringify({
    sourceType: r.source_type,
    sourceName: r.source_name,
    severity: r.severity,
    notificationKind: r.notification_kind,
    status: r.status,
    message: r.message,
    createdAt: iso(r.created_at),
    resolvedAt: iso(r.resolved_at),
    acknowledgedAt: iso(r.acknowledged_at),
    failureCount: r.failure_count,
    lastOccurrenceAt: iso(r.last_occurrence_at),
    workspaceName: r.workspace_name,
    capacityName: r.capacity_name,
  });
}

/** The `value` array of a list answer, as the bytes the server wrote. */
function rawValue(body: string): string {
  const start = body.indexOf('"value":') + '"value":'.length;
  const parsed = JSON.parse(body);
  return body.slice(start, start + JSON.stringify(parsed.value).length);
}

describe('alert items stored as JSON with their rows (migration 081)', () => {
  let t: TestApp;
  let key: string;
  let orgId: string;
  const ids: string[] = [];
  const awkward = [
    'plain',
    'quotes " and \\ backslash',
    'line\nbreak\ttab\u0001control\u001f',
    'emoji 😀 and accents ação',
    '\u2028 separators \u2029 </script>',
    '=1+1 formula-looking',
  ];
  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock(NOW), config: { apiRateLimitPerMinute: 100_000 } });
    orgId = await insertOrg(t.ctx.db);
    key = (await insertKey(t.ctx.db, orgId)).key;
    for (const [i, message] of awkward.entries()) {
      ids.push(
        await insertAlert(t.ctx.db, orgId, {
          // microseconds in the stored time: the item shows milliseconds, truncated
          createdAt: `2026-06-1${4 - (i % 2)}T1${i}:00:00.123987Z`,
          message,
          sourceName: `src "${i}"`,
          workspaceName: i % 2 ? `ws ${i}` : null,
          capacityName: i % 3 ? null : 'cap-\u00e9',
          failureCount: i + 1,
        }),
      );
    }
  });
  afterAll(() => t.close());

  const rows = async () =>
    (await t.ctx.db.query<Record<string, any>>('SELECT * FROM alerts WHERE org_id = $1 ORDER BY created_at DESC, id DESC', [orgId])).rows;

  it('stores, for every inserted row, exactly the bytes JSON.stringify writes for the item', async () => {
    for (const r of await rows()) expect(r.item_json).toBe(expectedItem(r));
    const res = await get(t.app, '/alerts', key);
    expect(res.statusCode).toBe(200);
    expect(rawValue(res.body)).toBe(`[${(await rows()).map(expectedItem).join(',')}]`);
  });

  it('follows every update of a field the item shows, whoever writes it', async () => {
    await acknowledgeAlert(t.ctx, orgId, ids[0]!, 'someone');
    await resolveAlert(t.ctx, orgId, ids[1]!);
    await t.ctx.db.query(`UPDATE alerts SET failure_count = failure_count + 10, message = 'changed "again"' WHERE id = $1`, [ids[2]]);
    await t.ctx.db.query(`UPDATE alerts SET workspace_name = NULL, capacity_name = 'c' WHERE id = $1`, [ids[3]]);
    const after = await rows();
    for (const r of after) expect(r.item_json).toBe(expectedItem(r));
    const byId = new Map(after.map((r) => [r.id, JSON.parse(r.item_json)]));
    expect(byId.get(ids[0])!.acknowledgedAt).toBe(NOW);
    expect(byId.get(ids[1])).toMatchObject({ status: 'resolved', resolvedAt: NOW });
    expect(byId.get(ids[2])).toMatchObject({ failureCount: 13, message: 'changed "again"' });
    expect(byId.get(ids[3])).toMatchObject({ workspaceName: null, capacityName: 'c' });
    const res = await get(t.app, '/alerts', key);
    expect(rawValue(res.body)).toBe(`[${after.map(expectedItem).join(',')}]`);
  });

  it('cannot be set to anything but the definition', async () => {
    await t.ctx.db.query(`UPDATE alerts SET item_json = '{"forged":true}' WHERE id = $1`, [ids[4]]);
    await t.ctx.db.query(`UPDATE alerts SET item_json = NULL WHERE id = $1`, [ids[5]]);
    for (const r of await rows()) expect(r.item_json).toBe(expectedItem(r));
  });

  it('stays out of every other read: the domain selects every column but item_json', async () => {
    const { rows: cols } = await t.ctx.db.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'alerts' AND table_schema = current_schema()`,
    );
    const table = cols.map((c) => c.column_name).filter((c) => c !== 'item_json').sort();
    expect(alertColumns().split(', ').sort()).toEqual(table);
    const view = await t.admin('GET', `/orgs/${orgId}/alerts/${ids[0]}`);
    expect(view.statusCode).toBe(200);
    expect(view.body).not.toContain('item_json');
    expect(view.body).not.toContain('itemJson');
    const list = await t.admin('GET', `/orgs/${orgId}/alerts`);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('item_json');
  });

  it('answers the same bytes for rows written before the migration (item_json NULL, computed on read)', async () => {
    const before = (await get(t.app, '/alerts', key)).body;
    const csvBefore = (await get(t.app, '/alerts?format=csv', key)).body;
    // Rows from before migration 081 have no stored text; the trigger did not exist when they were written.
    await t.ctx.db.exec('ALTER TABLE alerts DISABLE TRIGGER alerts_item_json');
    try {
      await t.ctx.db.query(`UPDATE alerts SET item_json = NULL WHERE org_id = $1 AND id = ANY($2::text[])`, [orgId, ids.filter((_, i) => i % 2 === 0)]);
    } finally {
      await t.ctx.db.exec('ALTER TABLE alerts ENABLE TRIGGER alerts_item_json');
    }
    const nulls = (await rows()).filter((r) => r.item_json === null).length;
    expect(nulls).toBe(3);
    const after = await get(t.app, '/alerts', key);
    expect(after.statusCode).toBe(200);
    const strip = (b: string) => b.replace(/"nextLink":"[^"]*"/, '');
    expect(strip(after.body)).toBe(strip(before));
    expect((await get(t.app, '/alerts?format=csv', key)).body).toBe(csvBefore);
  });
});
