import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import type { Database } from '../../src/db/index.js';
import { createPgDatabase } from '../../src/db/pg.js';
import { UNAUTHORIZED_MESSAGE } from '../../src/public-api/auth.js';
import { ApiKeyCache } from '../../src/public-api/key-cache.js';
import { hashToken } from '../../src/secrets/tokens.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { ENGINE } from '../helpers/db.js';
import { ALERT_FIELDS } from '../../src/public-api/queries/alerts.js';
import { errorOf, get, insertAlert, insertKey, insertOrg } from './helpers.js';

/**
 * The real database with every statement's text recorded, its dedicated pools' too: what one
 * request costs in round trips.
 */
function recording(db: Database, texts: string[] = []): { db: Database; texts: string[] } {
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'dedicatedPool') {
        return (...args: Parameters<Database['dedicatedPool']>) => recording(target.dedicatedPool(...args), texts).db;
      }
      if (prop === 'query') {
        return (text: string, ...rest: unknown[]) => {
          texts.push(text);
          return (target.query as (...a: unknown[]) => unknown)(text, ...rest);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: proxy, texts };
}

const isKeyLookup = (text: string) => text.includes('WHERE k.prefix = $1');

let address = 0;
const nextAddress = () => `192.0.2.${++address}`;

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('API key cache: one round trip per list page, and revocation on every instance', () => {
  let a: TestApp;
  let clock: ManualClock;
  /** A second instance of the service on the same database, its statements recorded. */
  let b: FastifyInstance;
  let bDb: Database;
  let bTexts: string[];
  let orgId: string;

  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:30Z');
    a = await createTestApp({ clock });
    // On PostgreSQL the second instance has its own pool and its own LISTEN connection, as a
    // second process would; the embedded engine is one process's database, so it is shared.
    bDb = ENGINE === 'pg' ? createPgDatabase(a.ctx.testDb.url!) : a.ctx.db;
    const rec = recording(bDb);
    bTexts = rec.texts;
    b = await buildApp({ ...a.ctx, db: rec.db });
    await b.ready();
    orgId = await insertOrg(a.ctx.db);
    await insertAlert(a.ctx.db, orgId, { createdAt: '2026-06-15T11:00:00Z', message: 'quote " backslash \\ newline \n tab \t ctl \u0001 emoji 😀 é' });
    await a.ctx.db.query(
      `INSERT INTO daily_costs (org_id, date, capacity_name, currency, cost, amortized_cost, overage_cost)
       VALUES ($1, '2026-06-14', 'cap-1', 'USD', 12.50, 0.1, 0)`,
      [orgId],
    );
    await a.ctx.db.query(`INSERT INTO capacities (org_id, name, sku, state, region) VALUES ($1, 'cap-1', 'F2', 'Active', 'westeurope')`, [orgId]);
  });
  afterAll(async () => {
    await b.close();
    if (bDb !== a.ctx.db) await bDb.close();
    await a.close();
  });

  /** One request on instance B; returns it and the statements it sent. */
  async function onB(path: string, key: string, ip = nextAddress()) {
    bTexts.length = 0;
    const res = await get(b, path, key, {}, ip);
    return { res, texts: [...bTexts] };
  }

  it('sends one statement for a list page once the key has been used, on every list', async () => {
    const { key } = await insertKey(a.ctx.db, orgId);
    for (const path of ['/alerts', '/capacities', '/workspaces', '/costs/daily', '/costs/daily?currency=EUR', '/alerts?status=open&sourceType=Gateway']) {
      const first = await onB(path, key);
      expect(first.res.statusCode, path).toBe(200);
      const second = await onB(path, key);
      expect(second.res.statusCode, path).toBe(200);
      expect(second.texts, path).toHaveLength(1);
      expect(isKeyLookup(second.texts[0]!)).toBe(false);
      expect(second.res.body).toBe(first.res.body);
    }
    // A route whose statements do not re-check the key still looks it up every time.
    await onB('/alerts/metrics', key);
    const metrics = await onB('/alerts/metrics', key);
    expect(metrics.res.statusCode).toBe(200);
    expect(metrics.texts.some(isKeyLookup)).toBe(true);
  });

  it('writes the page JSON in the database with the serializer’s bytes: compact, SPEC field order, escapes', async () => {
    const { key } = await insertKey(a.ctx.db, orgId);
    await onB('/alerts', key);
    const { res } = await onB('/alerts', key);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(res.body);
    expect(res.body).toBe(JSON.stringify(body));
    expect(Object.keys(body)).toEqual(['value', 'page', 'pageSize', 'totalCount', 'nextLink']);
    expect(Object.keys(body.value[0])).toEqual([...ALERT_FIELDS]);
    expect(body.value[0].message).toBe('quote " backslash \\ newline \n tab \t ctl \u0001 emoji 😀 é');
    expect(body.value[0].createdAt).toBe('2026-06-15T11:00:00.000Z');
    expect(body.value[0].resolvedAt).toBeNull();
    expect(body.totalCount).toBe(1);
    const caps = JSON.parse((await onB('/capacities', key)).res.body);
    expect(caps.value).toEqual([{ name: 'cap-1', sku: 'F2', state: 'Active', region: 'westeurope' }]);
    const costs = JSON.parse((await onB('/costs/daily', key)).res.body);
    expect(costs.value).toEqual([{ date: '2026-06-14', capacityName: 'cap-1', currency: 'USD', cost: 12.5, amortizedCost: 0.1, overageCost: 0 }]);
    expect((await onB('/costs/daily', key)).res.body).toContain('"cost":12.5,"amortizedCost":0.1,"overageCost":0}');
    const csv = await onB('/alerts?format=csv', key);
    expect(csv.res.statusCode).toBe(200);
    expect(csv.res.body.split('\r\n')[0]).toBe(`\ufeff${ALERT_FIELDS.join(',')}`);
  });

  it('refuses a key revoked through instance A on the next request to instance B, as any invalid key', async () => {
    const { key, id } = await insertKey(a.ctx.db, orgId);
    expect((await onB('/alerts', key)).res.statusCode).toBe(200);
    expect((await onB('/alerts', key)).texts).toHaveLength(1);
    expect((await a.admin('DELETE', `/orgs/${orgId}/api-keys/${id}`)).statusCode).toBe(204);
    const ip = nextAddress();
    const { res } = await onB('/alerts', key, ip);
    expect(res.statusCode).toBe(401);
    expect(errorOf(res)).toEqual({ code: 'unauthorized', message: UNAUTHORIZED_MESSAGE });
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    const unknown = await get(b, '/alerts', `vgk_ABCDEFGH_${'x'.repeat(40)}`, {}, nextAddress());
    expect(res.body).toBe(unknown.body);
    expect((await onB('/capacities', key, ip)).res.statusCode).toBe(401);
  });

  it('re-checks the key in the page statement itself, even when no notification arrives', async () => {
    const { key, id } = await insertKey(a.ctx.db, orgId);
    expect((await onB('/capacities', key)).res.statusCode).toBe(200);
    await a.ctx.db.exec('ALTER TABLE api_keys DISABLE TRIGGER api_keys_validity_changed');
    try {
      await a.ctx.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [id]);
      const { res, texts } = await onB('/capacities', key);
      expect(res.statusCode).toBe(401);
      expect(errorOf(res).code).toBe('unauthorized');
      // The page statement said so: the request made no key lookup of its own.
      expect(texts.some(isKeyLookup)).toBe(false);
      // …and the key left the cache: the next request looks it up.
      const again = await onB('/capacities', key);
      expect(again.res.statusCode).toBe(401);
      expect(again.texts.some(isKeyLookup)).toBe(true);
    } finally {
      await a.ctx.db.exec('ALTER TABLE api_keys ENABLE TRIGGER api_keys_validity_changed');
    }
  });

  it('answers 403 on instance B once the organization is suspended through instance A, 200 again after', async () => {
    const other = await insertOrg(a.ctx.db);
    const { key } = await insertKey(a.ctx.db, other);
    expect((await onB('/workspaces', key)).res.statusCode).toBe(200);
    expect((await a.admin('PATCH', `/orgs/${other}`, { suspended: true })).statusCode).toBe(200);
    const { res } = await onB('/workspaces', key);
    expect(res.statusCode).toBe(403);
    expect(errorOf(res)).toEqual({ code: 'forbidden', message: 'the organization is suspended' });
    expect((await a.admin('PATCH', `/orgs/${other}`, { suspended: false })).statusCode).toBe(200);
    expect((await onB('/workspaces', key)).res.statusCode).toBe(200);
  });

  it('refuses a cached key once it expires by the service clock', async () => {
    const { key } = await insertKey(a.ctx.db, orgId, undefined, { expiresAt: new Date('2026-06-15T12:05:00Z') });
    expect((await onB('/alerts', key)).res.statusCode).toBe(200);
    expect((await onB('/alerts', key)).texts).toHaveLength(1);
    clock.set('2026-06-15T12:05:00Z');
    try {
      const { res } = await onB('/alerts', key);
      expect(res.statusCode).toBe(401);
      expect(errorOf(res).code).toBe('unauthorized');
    } finally {
      clock.set('2026-06-15T12:00:30Z');
    }
  });
});

describe('ApiKeyCache invalidation through NOTIFY', () => {
  let t: TestApp;
  let cache: ApiKeyCache;
  beforeAll(async () => {
    t = await createTestApp();
    cache = new ApiKeyCache();
    await cache.start(t.ctx.db);
  });
  afterAll(async () => {
    await cache.stop();
    await t.close();
  });

  const entry = (id: string, orgId: string) => ({ id, orgId, scopes: ['ReadAlerts'], expiresAtMs: null, lastUsedAtMs: null });

  it('drops a key when any writer revokes it, and every key of an organization that is suspended', async () => {
    const org1 = await insertOrg(t.ctx.db);
    const org2 = await insertOrg(t.ctx.db);
    const k1 = await insertKey(t.ctx.db, org1);
    const k2 = await insertKey(t.ctx.db, org1);
    const k3 = await insertKey(t.ctx.db, org2);
    for (const k of [k1, k2]) cache.set(hashToken(k.key), entry(k.id, org1));
    cache.set(hashToken(k3.key), entry(k3.id, org2));
    expect(cache.size).toBe(3);

    await t.ctx.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [k1.id]);
    await until(() => cache.size === 2);
    expect(cache.get(hashToken(k1.key), Date.now())).toBeUndefined();
    expect(cache.get(hashToken(k2.key), Date.now())?.id).toBe(k2.id);

    // last_used_at is written once a minute per key; it must not empty the cache.
    await t.ctx.db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [k2.id]);
    await t.ctx.db.query('UPDATE orgs SET suspended = true WHERE id = $1', [org2]);
    await until(() => cache.size === 1);
    expect(cache.get(hashToken(k2.key), Date.now())?.id).toBe(k2.id);

    // A rolled-back revocation says nothing.
    await t.ctx.db
      .tx(async (q) => {
        await q.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [k2.id]);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    // Notifications arrive in commit order: once a later revocation's has arrived, the
    // rolled-back one would have too.
    const org3 = await insertOrg(t.ctx.db);
    const k4 = await insertKey(t.ctx.db, org3);
    cache.set(hashToken(k4.key), entry(k4.id, org3));
    await t.ctx.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [k4.id]);
    await until(() => cache.get(hashToken(k4.key), Date.now()) === undefined);
    expect(cache.get(hashToken(k2.key), Date.now())?.id).toBe(k2.id);

    await t.ctx.db.query('UPDATE orgs SET suspended = true WHERE id = $1', [org1]);
    await until(() => cache.size === 0);
  });

  it('keeps at most its bound of entries, the oldest leaving first', () => {
    const small = new ApiKeyCache(2);
    small.set('h1', entry('k1', 'o'));
    small.set('h2', entry('k2', 'o'));
    small.set('h3', entry('k3', 'o'));
    expect(small.size).toBe(2);
    expect(small.get('h1', 0)).toBeUndefined();
    expect(small.get('h3', 0)?.id).toBe('k3');
  });
});
