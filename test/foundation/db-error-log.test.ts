/**
 * A failed statement is logged with its name and PostgreSQL's error, never its parameters: a
 * parameter may be a sealed credential or attacker text, and both drivers attach parameters (or
 * server text quoting them) to their errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseStatementError } from '../../src/db/errors.js';
import { setResolver } from '../../src/delivery/guarded-http.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

const SECRET = 'sEcReT-value-4f1c9a';

describe('database errors in the log', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    setResolver(t.ctx, async () => [{ address: '93.184.216.34', family: 4 }]);
  });
  afterAll(() => t.close());

  it('a failing statement is logged by name and error, without the parameter values the server quotes', async () => {
    await t.ctx.db.query(`INSERT INTO orgs (id, name, created_at, updated_at) VALUES ($1, 'x', now(), now())`, [SECRET]);
    const failing: Array<[string, unknown[], RegExp]> = [
      ['SELECT $1::int AS n', [SECRET], /invalid input syntax for type integer/],
      [`INSERT INTO orgs (id, name, created_at, updated_at) VALUES ($1, $2, now(), now())`, [SECRET, SECRET], /duplicate key value violates unique constraint "orgs_pkey"/],
      ['SELECT $1::jsonb AS j', [JSON.stringify({ a: { b: `${SECRET}\u0000` } })], /unsupported Unicode escape sequence/],
      ['SELECT $1::timestamptz AS t', [`${SECRET}-01-01`], /invalid input syntax for type timestamp with time zone|time zone/],
    ];
    for (const [sql, params, message] of failing) {
      const err = await t.ctx.db.query(sql, params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, sql).toBeInstanceOf(DatabaseStatementError);
      const e = err as DatabaseStatementError;
      expect(e.message, sql).toMatch(message);
      expect(e.statement, sql).toBe(sql.split(/\s+/).slice(0, 8).join(' ') + (sql.split(/\s+/).length > 8 ? ' …' : ''));
      expect(e.code, sql).toMatch(/^[0-9A-Z]{5}$/);
      t.ctx.log.error({ err: e }, 'statement failed');
    }
    const lines = t.ctx.logs.lines.filter((l) => l.includes('statement failed'));
    expect(lines).toHaveLength(failing.length);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(line).toMatch(/"statement":"(SELECT|INSERT)/);
    }
  });

  it('an unexpected failure behind the admin API logs no sealed credential and no request text', async () => {
    const orgId = (await createOrg(t)).id;
    // Every destination insert now fails inside the database, after the credentials were sealed.
    await t.ctx.db.exec(`
      CREATE FUNCTION refuse_destination() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'destinations are read-only in this test'; END $$;
      CREATE TRIGGER refuse_destination BEFORE INSERT ON destinations FOR EACH ROW EXECUTE FUNCTION refuse_destination();`);
    try {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, {
        name: `ops ${SECRET}-name`,
        kind: 'pagerduty',
        credentials: { routingKey: 'R0utingKey0123456789abcdefABCDEF' },
      });
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain(SECRET);
      const line = t.ctx.logs.lines.find((l) => l.includes('unhandled error') && l.includes('read-only in this test'));
      expect(line, t.ctx.logs.text.slice(-2000)).toBeDefined();
      expect(line).toContain('INSERT INTO destinations');
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain('R0utingKey');
      // Sealed values look like v1.<key id>.<nonce>.<tag>.<ciphertext>: none in the line.
      expect(line).not.toMatch(/v1\.[0-9a-f]{8}\./);
      expect(line).not.toContain('"params"');
    } finally {
      await t.ctx.db.exec('DROP TRIGGER refuse_destination ON destinations; DROP FUNCTION refuse_destination();');
    }
  });
});
