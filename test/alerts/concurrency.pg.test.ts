/**
 * Races (issue 2 §5), run for real: two processes or two connection pools on one database. Only
 * on PostgreSQL (a *.pg.test.ts file): the embedded engine has one connection and runs one
 * transaction at a time, so no race can happen there and a race test could not fail.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createPgDatabase } from '../../src/db/pg.js';
import type { Database } from '../../src/db/index.js';
import { acknowledgeAlert, ingestSignals } from '../../src/alerts/lifecycle.js';
import { runEscalationPass } from '../../src/alerts/jobs.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { createOrg as createOrgDomain } from '../../src/orgs/orgs.js';
import { signal } from '../helpers/fixtures.js';
import { DomainError } from '../../src/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

function runChild(env: Record<string, string>): { ready: Promise<void>; go(): void; result: Promise<any[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'scripts/ingest-child.ts')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const result = new Promise<any[]>((resolve, reject) => {
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}: ${err}`));
      resolve(JSON.parse(out.split('\n').filter(Boolean).at(-1)!));
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), result };
}

describe('concurrency (PostgreSQL)', () => {
  let ctx: TestContext;
  let clock: ManualClock;
  /** A second, independent pool on the same database (another instance). */
  let second: Database;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    ctx = await createTestContext({ clock });
    second = createPgDatabase(ctx.testDb.url!);
  });
  afterAll(async () => {
    await second.close();
    await ctx.close();
  });

  const ctxOn = (db: Database) => ({ db, clock, config: ctx.config });

  async function openIncidentsPerKey(orgId: string) {
    const { rows } = await ctx.db.query<{ source_id: string; n: number; failures: number }>(
      `SELECT source_id, count(*)::int AS n, sum(failure_count)::int AS failures FROM alerts
       WHERE org_id = $1 GROUP BY source_id ORDER BY source_id`,
      [orgId],
    );
    return rows;
  }

  it('two processes, each with its own pool, signalling the same keys at once create one incident per key', async () => {
    const org = await createOrgDomain(ctx, { name: 'race' });
    const keys = 60;
    const a = runChild({ DATABASE_URL: ctx.testDb.url!, ORG_ID: org.id, KEYS: String(keys) });
    const b = runChild({ DATABASE_URL: ctx.testDb.url!, ORG_ID: org.id, KEYS: String(keys) });
    await Promise.all([a.ready, b.ready]);
    a.go();
    b.go();
    const outcomes = [...(await a.result), ...(await b.result)];
    expect(outcomes).toHaveLength(2 * keys);
    const opened = outcomes.filter((o) => o.outcome === 'opened');
    expect(opened).toHaveLength(keys);
    expect(outcomes.filter((o) => o.outcome === 'reoccurred')).toHaveLength(keys);
    const perKey = await openIncidentsPerKey(org.id);
    expect(perKey).toHaveLength(keys);
    for (const row of perKey) expect(row).toMatchObject({ n: 1, failures: 2 });
    const { rows } = await ctx.db.query(
      `SELECT count(*)::int AS n FROM alert_events e JOIN alerts a ON a.id = e.alert_id WHERE a.org_id = $1 AND e.event = 'alert.opened'`,
      [org.id],
    );
    expect(rows[0]!.n).toBe(keys);
  }, 120_000);

  it('concurrent batches over the same keys (two pools, crossing order) create one incident per key', async () => {
    const org = await createOrgDomain(ctx, { name: 'batches' });
    const batch = Array.from({ length: 40 }, (_, i) => signal({ sourceId: `k-${i}` }));
    const reversed = [...batch].reverse();
    const results = await Promise.all([
      ingestSignals(ctxOn(ctx.db), org.id, batch),
      ingestSignals(ctxOn(second), org.id, reversed),
      ingestSignals(ctxOn(ctx.db), org.id, batch),
      ingestSignals(ctxOn(second), org.id, reversed),
    ]);
    const all = results.flatMap((r) => r.outcomes);
    expect(all.filter((o) => o.outcome === 'opened')).toHaveLength(40);
    const perKey = await openIncidentsPerKey(org.id);
    expect(perKey).toHaveLength(40);
    for (const row of perKey) expect(row).toMatchObject({ n: 1, failures: 4 });
  });

  it('two escalation scanners racing emit one alert.escalated per incident', async () => {
    const org = await createOrgDomain(ctx, { name: 'escalate', escalationMinutes: 5 });
    await ingestSignals(ctxOn(ctx.db), org.id, Array.from({ length: 120 }, (_, i) => signal({ sourceId: `e-${i}` })));
    clock.advance(6 * 60_000);
    const [a, b, c] = await Promise.all([runEscalationPass(ctxOn(ctx.db)), runEscalationPass(ctxOn(second)), runEscalationPass(ctxOn(second))]);
    const ids = [...a, ...b, ...c].map((e) => e.alertId);
    expect(ids).toHaveLength(120);
    expect(new Set(ids).size).toBe(120);
    const { rows } = await ctx.db.query(
      `SELECT e.alert_id, count(*)::int AS n FROM alert_events e JOIN alerts a ON a.id = e.alert_id
       WHERE a.org_id = $1 AND e.event = 'alert.escalated' GROUP BY e.alert_id`,
      [org.id],
    );
    expect(rows).toHaveLength(120);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });

  it('acknowledge racing recovery leaves a consistent alert and event sequence', async () => {
    const org = await createOrgDomain(ctx, { name: 'ack-vs-recover' });
    const n = 40;
    const { outcomes } = await ingestSignals(ctxOn(ctx.db), org.id, Array.from({ length: n }, (_, i) => signal({ sourceId: `ar-${i}` })));
    clock.advance(60_000);
    const acks = await Promise.all(
      outcomes.flatMap((o, i) => [
        acknowledgeAlert(ctxOn(i % 2 ? ctx.db : second), org.id, o.alertId!, 'ops').then(
          () => 200,
          (err) => (err instanceof DomainError && err.kind === 'conflict' ? 409 : -1),
        ),
        ingestSignals(ctxOn(i % 2 ? second : ctx.db), org.id, signal({ sourceId: `ar-${i}`, kind: 'recovery' })).then(() => 0),
      ]),
    );
    const ackStatus = acks.filter((_, j) => j % 2 === 0);
    expect(ackStatus.every((s) => s === 200 || s === 409)).toBe(true);
    for (const [i, o] of outcomes.entries()) {
      const { rows: [alert] } = await ctx.db.query('SELECT status, acknowledged FROM alerts WHERE id = $1', [o.alertId]);
      const { rows: evts } = await ctx.db.query<{ event: string; ack: boolean; status: string }>(
        `SELECT event, (snapshot->>'acknowledged')::boolean AS ack, snapshot->>'status' AS status FROM alert_events WHERE alert_id = $1 ORDER BY seq`,
        [o.alertId],
      );
      expect(alert!.status).toBe('resolved');
      if (ackStatus[i] === 200) {
        expect(alert!.acknowledged).toBe(true);
        expect(evts).toEqual([
          { event: 'alert.opened', ack: false, status: 'open' },
          { event: 'alert.acknowledged', ack: true, status: 'open' },
          { event: 'alert.recovered', ack: true, status: 'resolved' },
        ]);
      } else {
        expect(alert!.acknowledged).toBe(false);
        expect(evts).toEqual([
          { event: 'alert.opened', ack: false, status: 'open' },
          { event: 'alert.recovered', ack: false, status: 'resolved' },
        ]);
      }
    }
  });
});
