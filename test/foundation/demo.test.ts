/** `vigia demo` in a child process, on the engine under test (embedded data dir or PostgreSQL). */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase } from '../../src/db/pg.js';
import { createPgliteDatabase } from '../../src/db/pglite.js';
import type { Database } from '../../src/db/index.js';
import { hashToken } from '../../src/secrets/tokens.js';
import { createPgTestDatabaseUrl, ENGINE } from '../helpers/db.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', VIGIA_LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe(`vigia demo (${ENGINE})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let openDb: () => Promise<Database>;
  beforeAll(async () => {
    if (ENGINE === 'pg') {
      const pgdb = await createPgTestDatabaseUrl();
      env = { DATABASE_URL: pgdb.url, VIGIA_SECRET_KEY: randomBytes(32).toString('base64') };
      openDb = async () => createPgDatabase(pgdb.url);
      cleanup = pgdb.drop;
    } else {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigia-demo-'));
      env = { VIGIA_DATA_DIR: dir };
      openDb = () => createPgliteDatabase(path.join(dir, 'db'));
      cleanup = async () => rmSync(dir, { recursive: true, force: true });
    }
  });
  afterAll(() => cleanup());

  it('creates a demo organization with inventory, costs, a key and incidents of every source type', async () => {
    const res = await run(['demo', '--no-live'], env); // the live story has its own test (test/cli/readme-tour.test.ts)
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const key = /API key \(all scopes, shown once; for the server on this data \(npm start\)\): (vgk_\S+)/.exec(res.stdout)?.[1];
    expect(key).toMatch(/^vgk_[0-9A-Za-z]{8}_[0-9A-Za-z]{32,}$/);
    expect(res.stdout).toContain(`curl -H "X-Api-Key: ${key}" "http://localhost:8080/api/public/v1/alerts"`);
    expect(res.stdout).toContain('/api/public/v1/sla');

    const db = await openDb();
    try {
      const one = async (sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows[0]!;
      const { id: orgId } = await one('SELECT id FROM orgs');
      expect((await one('SELECT count(*)::int AS n FROM orgs')).n).toBe(1);
      const k = await one('SELECT key_hash, scopes, revoked_at FROM api_keys WHERE org_id = $1', [orgId]);
      expect(k.key_hash).toBe(hashToken(key!));
      expect(k.scopes).toHaveLength(6);
      expect((await one('SELECT count(*)::int AS n FROM capacities WHERE org_id = $1', [orgId])).n).toBe(3);
      expect((await one('SELECT count(*)::int AS n FROM workspaces WHERE org_id = $1', [orgId])).n).toBe(6);
      const costs = await one(
        `SELECT count(DISTINCT date) FILTER (WHERE currency = 'BRL')::int AS brl_days, count(*) FILTER (WHERE currency = 'USD')::int AS usd
         FROM daily_costs WHERE org_id = $1`,
        [orgId],
      );
      expect(costs.brl_days).toBeGreaterThanOrEqual(30);
      expect(costs.usd).toBeGreaterThan(0);
      const a = await one(
        `SELECT count(*)::int AS n, count(DISTINCT source_type)::int AS types,
           count(*) FILTER (WHERE acknowledged)::int AS acked, count(*) FILTER (WHERE status = 'resolved')::int AS resolved,
           count(*) FILTER (WHERE status = 'open')::int AS open, count(*) FILTER (WHERE failure_count > 1)::int AS repeated,
           count(*) FILTER (WHERE silenced)::int AS silenced, count(*) FILTER (WHERE correlated)::int AS correlated
         FROM alerts WHERE org_id = $1`,
        [orgId],
      );
      expect(a.n).toBeGreaterThan(50);
      expect(a.types).toBe(7);
      for (const f of ['acked', 'resolved', 'open', 'repeated', 'silenced', 'correlated']) expect(a[f], f).toBeGreaterThan(0);
      const e = await one(`SELECT count(DISTINCT event)::int AS kinds FROM alert_events WHERE org_id = $1`, [orgId]);
      expect(e.kinds).toBe(3); // opened, acknowledged, recovered (escalation is the service's job)
    } finally {
      await db.close();
    }
  }, 180_000);
});
