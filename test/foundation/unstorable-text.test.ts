/**
 * Text PostgreSQL cannot hold as sent is refused with a 400 naming the field, at any depth:
 * U+0000 (a 500 in the database) and lone UTF-16 surrogates (stored as U+FFFD, so two different
 * source ids would become one incident). JSON nested deeper than 32 levels is refused unread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, signal } from '../helpers/fixtures.js';

function nested(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = { k: v };
  return v;
}

describe('unstorable text and deep JSON in admin input', () => {
  let t: TestApp;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
    orgId = (await createOrg(t)).id;
  });
  afterAll(() => t.close());

  const countDestinations = async () =>
    (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM destinations WHERE org_id = $1', [orgId])).rows[0]!.n;

  it('a NUL nested 25 levels deep in a destination config is a 400 naming its path', async () => {
    const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
      name: 'pd',
      kind: 'pagerduty',
      config: { deep: nested(25, 'a\u0000') },
      credentials: { routingKey: '0123456789abcdef0123456789abcdef' },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.message).toBe(`body.config.deep${'.k'.repeat(25)} must not contain the NUL character (\\u0000)`);
    expect(await countDestinations()).toBe(0);
    expect(t.ctx.logs.text).not.toContain('unhandled error');
  });

  it('JSON nested deeper than 32 levels is refused before parsing; 32 levels are parsed', async () => {
    const deep = await t.admin('POST', `/orgs/${orgId}/destinations`, JSON.stringify({ name: 'x', kind: 'webhook', url: 'https://hooks.example.com/a', config: nested(40, 1) }), {
      'content-type': 'application/json',
    });
    expect(deep.statusCode, deep.body).toBe(400);
    expect(deep.json().error.message).toMatch(/nest .* more than 32 levels/);
    // Brackets inside strings do not count.
    const inString = await t.admin('POST', `/orgs/${orgId}/signals`, [signal({ sourceId: 'brackets', message: '[[[[{{{{'.repeat(20) })]);
    expect(inString.statusCode, inString.body).toBe(200);
    const atLimit = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'x', kind: 'webhook', url: 'https://hooks.example.com/a', config: nested(31, 1) });
    expect(atLimit.statusCode).toBe(400); // parsed: the webhook's config rule answers, not the depth rule
    expect(atLimit.json().error.message).toContain('"config" is not used by a webhook destination');
    const stack = await t.admin('POST', `/orgs/${orgId}/signals`, `${'['.repeat(200_000)}${']'.repeat(200_000)}`, { 'content-type': 'application/json' });
    expect(stack.statusCode).toBe(400);
    expect(t.ctx.logs.text).not.toContain('unhandled error');
  });

  it('lone surrogates in a signal identity are refused; a well-formed pair is kept exactly', async () => {
    const lone: Array<[Record<string, string>, string]> = [
      [{ sourceId: 'gw-\uD800' }, 'body[0].sourceId'],
      [{ sourceId: 'gw-\uDC00x' }, 'body[0].sourceId'],
      [{ sourceType: 'Gate\uDBFFway' }, 'body[0].sourceType'],
      [{ notificationKind: '\uDFFF' }, 'body[0].notificationKind'],
      [{ title: 'a\uD83D' }, 'body[0].title'],
    ];
    for (const [override, path] of lone) {
      const res = await t.admin('POST', `/orgs/${orgId}/signals`, [signal({ ...override })]);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toBe(`${path} must be well-formed Unicode text (it contains a lone UTF-16 surrogate)`);
    }
    const cause = await t.admin('POST', `/orgs/${orgId}/signals`, [signal({ sourceId: 'c', causes: [{ sourceType: 'Gateway', sourceId: '\uD800' }] })]);
    expect(cause.statusCode).toBe(400);
    expect(cause.json().error.message).toContain('body[0].causes[0].sourceId');
    const { rows } = await t.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE org_id = $1 AND source_id LIKE 'gw-%'`, [orgId]);
    expect(rows[0]!.n).toBe(0);

    // Two ids that differ only in their emoji stay two incidents.
    const ok = await t.admin('POST', `/orgs/${orgId}/signals`, [signal({ sourceId: 'gw-😀' }), signal({ sourceId: 'gw-😁' })]);
    expect(ok.statusCode, ok.body).toBe(200);
    const ids = ok.json().map((o: { alertId: string }) => o.alertId);
    expect(new Set(ids).size).toBe(2);
    const stored = await t.ctx.db.query<{ source_id: string }>(`SELECT source_id FROM alerts WHERE org_id = $1 AND source_id LIKE 'gw-%' ORDER BY source_id`, [orgId]);
    expect(stored.rows.map((r) => r.source_id)).toEqual(['gw-😀', 'gw-😁']);
  });

  it('lone surrogates in an object key or any other body text are refused too', async () => {
    const key = await t.admin('POST', `/orgs/${orgId}/signals`, [{ ...signal(), 'x\uD800': 1 }]);
    expect(key.statusCode).toBe(400);
    expect(key.json().error.message).toContain('lone UTF-16 surrogate');
    const name = await t.admin('POST', '/orgs', { name: 'Acme \uDE00' });
    expect(name.statusCode).toBe(400);
    expect(name.json().error.message).toBe('body.name must be well-formed Unicode text (it contains a lone UTF-16 surrogate)');
  });
});
