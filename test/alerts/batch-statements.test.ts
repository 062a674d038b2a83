/**
 * A batch of 1,000 signals costs a handful of statements, not thousands: the count of statements
 * the batch's transaction sends is independent of the batch's size. Each case also checks the
 * batch did its work (rows, events, deliveries), so a cheap batch that skips work cannot pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ingestSignals } from '../../src/alerts/lifecycle.js';
import type { SignalInput } from '../../src/alerts/signals.js';
import type { Database, Queryable } from '../../src/db/index.js';
import { createDestination } from '../../src/delivery/destination-service.js';
import { createOrg } from '../../src/orgs/orgs.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

/** The same database, counting the statements sent inside its transactions. */
function countingDatabase(db: Database): { db: Database; statements: () => number; reset: () => void } {
  let n = 0;
  const counted = (q: Queryable): Queryable => ({
    query: (text, params, opts) => {
      n++;
      return q.query(text, params, opts);
    },
    exec: (text) => {
      n++;
      return q.exec(text);
    },
  });
  const wrapped: Database = {
    capabilities: db.capabilities,
    query: (text, params, opts) => db.query(text, params, opts),
    exec: (text) => db.exec(text),
    tx: (fn) => db.tx((q) => fn(counted(q))),
    dedicatedPool: (max, opts) => db.dedicatedPool(max, opts),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
  };
  return { db: wrapped, statements: () => n, reset: () => { n = 0; } };
}

const BATCH = 1000;
/** Lock, starting state (≤ 4 reads), UPDATE, INSERT, the destinations once, the outbox append. */
const MAX_STATEMENTS = 10;

function signals(kind: 'failure' | 'recovery', extra: Partial<SignalInput> = {}): SignalInput[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    sourceType: 'Dataset',
    sourceId: `ds-${i}`,
    sourceName: `Dataset ${i}`,
    kind,
    notificationKind: 'RefreshFailed',
    title: 'Refresh failed',
    message: `refresh ${i} failed`,
    ...extra,
  }));
}

describe('a 1,000-signal batch runs a bounded number of statements', () => {
  let ctx: TestContext;
  let counter: ReturnType<typeof countingDatabase>;
  let orgId: string;
  const count = async (table: string, where = '') =>
    (await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1 ${where}`, [orgId])).rows[0]!.n;

  beforeAll(async () => {
    ctx = await createTestContext({ clock: new ManualClock('2026-06-15T12:00:00Z') });
    counter = countingDatabase(ctx.db);
    orgId = (await createOrg(ctx, { name: 'batch' })).id;
    await createDestination(ctx, orgId, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' } as never);
    // A disabled destination gets a `skipped` delivery of each event, in the same bulk write.
    await createDestination(ctx, orgId, { name: 'Off', kind: 'webhook', url: 'https://hooks.example.com/off', enabled: false } as never);
    // A cause that stays open: every incident of the correlated batch below waits on it.
    await ingestSignals(ctx, orgId, { ...signals('failure')[0]!, sourceType: 'Capacity', sourceId: 'cap-1' });
  });
  afterAll(() => ctx.close());

  const ingest = async (body: SignalInput[]) => {
    counter.reset();
    const { outcomes } = await ingestSignals({ ...ctx, db: counter.db }, orgId, body);
    return { outcomes, statements: counter.statements() };
  };

  it('opens 1,000 incidents', async () => {
    const { outcomes, statements } = await ingest(signals('failure'));
    expect(outcomes.every((o) => o.outcome === 'opened')).toBe(true);
    expect(await count('alerts', "AND status = 'open'")).toBe(BATCH + 1);
    expect(await count('alert_events')).toBe(BATCH + 1);
    expect(await count('deliveries', "AND status = 'pending'")).toBe(BATCH + 1);
    expect(await count('deliveries', "AND status = 'skipped'")).toBe(BATCH + 1);
    expect(statements).toBeLessThanOrEqual(MAX_STATEMENTS);
  });

  it('records 1,000 reoccurrences', async () => {
    const { outcomes, statements } = await ingest(signals('failure'));
    expect(outcomes.every((o) => o.outcome === 'reoccurred')).toBe(true);
    expect(await count('alerts', 'AND failure_count = 2')).toBe(BATCH);
    expect(statements).toBeLessThanOrEqual(MAX_STATEMENTS);
  });

  it('recovers 1,000 incidents', async () => {
    const { outcomes, statements } = await ingest(signals('recovery'));
    expect(outcomes.every((o) => o.outcome === 'recovered')).toBe(true);
    expect(await count('alerts', "AND status = 'resolved'")).toBe(BATCH);
    expect(await count('alert_events', "AND event = 'alert.recovered'")).toBe(BATCH);
    expect(statements).toBeLessThanOrEqual(MAX_STATEMENTS);
  });

  it('opens 1,000 correlated incidents and releases them when their cause recovers', async () => {
    const correlated = signals('failure', { sourceType: 'Report', causes: [{ sourceType: 'Capacity', sourceId: 'cap-1' }] });
    const opened = await ingest(correlated);
    expect(opened.outcomes.every((o) => o.outcome === 'opened' && o.correlated)).toBe(true);
    expect(opened.statements).toBeLessThanOrEqual(MAX_STATEMENTS);

    const recovered = await ingest([{ ...signals('recovery')[0]!, sourceType: 'Capacity', sourceId: 'cap-1' }]);
    expect(recovered.outcomes[0]!.outcome).toBe('recovered');
    expect(await count('alerts', "AND source_type = 'Report' AND NOT suppressed AND released_at IS NOT NULL")).toBe(BATCH);
    expect(recovered.statements).toBeLessThanOrEqual(MAX_STATEMENTS);
  });
});
