/**
 * A batch of signals gives exactly what applying its signals one at a time gives: the same
 * outcomes, the same alert rows, the same events (kinds, order, times, snapshots) and the same
 * deliveries. Two organizations start from the same random history (silences, incidents, some
 * acknowledged); one receives a random batch through ingestSignals (set-based), the other the
 * same signals through the per-signal code the set-based path replaced (support/
 * sequential-signals.ts), one statement or more per signal. Identifiers differ between the two,
 * so each alert is named by the order in which outcomes first mention it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { acknowledgeAlert, ingestSignals, type SignalOutcome } from '../../src/alerts/lifecycle.js';
import { validateSignals, type SignalInput } from '../../src/alerts/signals.js';
import { createSilence } from '../../src/alerts/silences.js';
import { createDestination } from '../../src/delivery/destination-service.js';
import { createOrg } from '../../src/orgs/orgs.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { applySignalsOneByOne } from './support/sequential-signals.js';

const SOURCES = [
  { sourceType: 'Capacity', sourceId: 'cap-1' },
  { sourceType: 'Dataset', sourceId: 'ds-1' },
  { sourceType: 'Dataset', sourceId: 'ds-2' },
  { sourceType: 'Gateway', sourceId: 'gw-1' },
] as const;
const KINDS = ['Failed', 'Slow'] as const;

interface GenSignal {
  source: number;
  kind: number;
  failure: boolean;
  causes: number[];
  minutesAgo: number;
  severity: 'error' | 'info';
}

const signalArb: fc.Arbitrary<GenSignal> = fc.record({
  source: fc.integer({ min: 0, max: SOURCES.length - 1 }),
  kind: fc.integer({ min: 0, max: KINDS.length - 1 }),
  failure: fc.boolean(),
  causes: fc.uniqueArray(fc.integer({ min: 0, max: SOURCES.length - 1 }), { maxLength: 2 }),
  // Never 0: an `alert.opened` at the clock's time is then always a release.
  minutesAgo: fc.integer({ min: 1, max: 90 }),
  severity: fc.constantFrom('error' as const, 'info' as const),
});

const silenceArb = fc.record({
  sourceId: fc.option(fc.constantFrom(...SOURCES.map((s) => s.sourceId)), { nil: undefined }),
  notificationKind: fc.option(fc.constantFrom(...KINDS), { nil: undefined }),
});

const scenarioArb = fc.record({
  silences: fc.array(silenceArb, { maxLength: 2 }),
  history: fc.array(signalArb, { maxLength: 12 }),
  acknowledge: fc.uniqueArray(fc.integer({ min: 0, max: SOURCES.length - 1 }), { maxLength: 2 }),
  batch: fc.array(signalArb, { minLength: 1, maxLength: 30 }),
});

function toInput(g: GenSignal, now: Date): SignalInput {
  const src = SOURCES[g.source]!;
  return {
    ...src,
    sourceName: `${src.sourceId} name`,
    kind: g.failure ? 'failure' : 'recovery',
    notificationKind: KINDS[g.kind]!,
    severity: g.severity,
    // Text that array literals must escape (quotes, braces, commas, backslashes), beside non-ASCII.
    title: `${src.sourceId} "${KINDS[g.kind]}" {a,b} \\ NULL`,
    message: `m ${g.minutesAgo} — ação ✓ 😀 ' " } {`,
    workspaceName: g.severity === 'info' ? 'Finance, "EU"' : null,
    capacityName: g.source === 0 ? 'P1' : undefined,
    occurredAt: new Date(now.getTime() - g.minutesAgo * 60_000 - (g.minutesAgo % 7)).toISOString(),
    causes: g.causes.map((i) => ({ ...SOURCES[i]! })),
  };
}

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;
const sig = (source: number, failure: boolean, causes: number[] = [], minutesAgo = 5): GenSignal => ({ source, kind: 0, failure, causes, minutesAgo, severity: 'error' });

/** Cases checked on every run, beside the random ones. */
const EXAMPLES: Scenario[] = [
  // A cause opened before the batch recovers in it: its correlated (acknowledged) incident is released, then recovers.
  { silences: [], history: [sig(0, true), sig(1, true, [0])], acknowledge: [1], batch: [sig(1, true), sig(0, false), sig(1, false)] },
  // Open, recover, open again of one key; a correlated incident opened and released inside the batch.
  { silences: [], history: [], acknowledge: [], batch: [sig(0, true), sig(2, true, [0, 1]), sig(0, false, [], 9), sig(0, true), sig(2, true), sig(0, false, [], 1)] },
  // Two causes: released only when the second one recovers; a silenced one is never released.
  {
    silences: [{ sourceId: 'gw-1', notificationKind: undefined }],
    history: [sig(0, true), sig(1, true), sig(2, true, [0, 1]), sig(3, true, [0])],
    acknowledge: [],
    batch: [sig(0, false), sig(2, true), sig(1, false), sig(3, false)],
  },
];

describe('signal batches equal per-signal processing (property)', () => {
  let ctx: TestContext;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    ctx = await createTestContext({ clock });
  });
  afterAll(() => ctx.close());

  /**
   * One organization with a webhook, a disabled webhook (its deliveries are `skipped`) and a
   * connector destination (the connector keeps incident order).
   */
  async function newOrg(name: string): Promise<string> {
    const org = await createOrg(ctx, { name, escalationMinutes: 30 });
    await createDestination(ctx, org.id, { name: 'Hook', kind: 'webhook', url: 'https://hooks.example.com/vigia' } as never);
    await createDestination(ctx, org.id, { name: 'Off', kind: 'webhook', url: 'https://hooks.example.com/off', enabled: false } as never);
    await createDestination(ctx, org.id, {
      name: 'PD', kind: 'pagerduty', config: {}, credentials: { routingKey: 'R0UTINGKEYabcdefghijklmnopqrstuv' },
    } as never);
    return org.id;
  }

  /** Everything a user can see of the organization, alert and silence ids replaced by stable names. */
  async function observe(orgId: string, outcomes: SignalOutcome[], silenceIds: string[]) {
    const names = new Map<string, string>();
    for (const o of outcomes) if (o.alertId && !names.has(o.alertId)) names.set(o.alertId, `A${names.size}`);
    const name = (id: string) => names.get(id) ?? `unknown:${id}`;
    const { rows: alerts } = await ctx.db.query<Record<string, any>>('SELECT * FROM alerts WHERE org_id = $1', [orgId]);
    const { rows: events } = await ctx.db.query<Record<string, any>>(
      'SELECT id, event, alert_id, occurred_at, snapshot, created_at FROM alert_events WHERE org_id = $1 ORDER BY seq',
      [orgId],
    );
    const { rows: deliveries } = await ctx.db.query<Record<string, any>>(
      `SELECT d.event_id, t.name, d.status, d.last_error, d.next_attempt_at, d.completed_at FROM deliveries d
         JOIN destinations t ON t.id = d.destination_id WHERE d.org_id = $1 ORDER BY d.event_seq, t.name`,
      [orgId],
    );
    // Incidents released together emit in id order, and ids are random: within a run of
    // releases (alert.opened at the clock's time) order by name instead.
    const isRelease = (e: Record<string, any>) => e.event === 'alert.opened' && e.occurred_at.getTime() === e.created_at.getTime();
    for (let i = 0; i < events.length; ) {
      let j = i;
      while (j < events.length && isRelease(events[j]!)) j++;
      if (j > i + 1) events.splice(i, j - i, ...events.slice(i, j).sort((x, y) => (name(x.alert_id) < name(y.alert_id) ? -1 : 1)));
      i = Math.max(j, i + 1);
    }
    const eventIndex = new Map(events.map((e, i) => [e.id as string, i]));
    deliveries.sort((x, y) => eventIndex.get(x.event_id)! - eventIndex.get(y.event_id)! || (x.name < y.name ? -1 : 1));
    return {
      outcomes: outcomes.map((o) => ({ ...o, alertId: o.alertId && name(o.alertId) })),
      alerts: alerts
        .map(({ id, org_id: _o, silence_id, cause_alert_ids, ...rest }) => ({
          name: name(id),
          silence: silence_id === null ? null : silenceIds.indexOf(silence_id),
          causes: (cause_alert_ids as string[]).map(name).sort(),
          ...rest,
        }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
      events: events.map(({ id: _id, alert_id, snapshot, ...rest }) => ({
        alert: name(alert_id),
        snapshot: { ...snapshot, id: name(snapshot.id), url: snapshot.url.replace(snapshot.id, name(snapshot.id)) },
        ...rest,
      })),
      deliveries: deliveries.map(({ event_id, ...rest }) => ({ event: eventIndex.get(event_id), ...rest })),
    };
  }

  it('gives the same outcomes, rows, events and deliveries', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (sc) => {
        const now = clock.now();
        const orgs = [await newOrg('batch'), await newOrg('one-by-one')];
        const state = await Promise.all(
          orgs.map(async (orgId) => {
            const silenceIds: string[] = [];
            for (const [i, m] of sc.silences.entries()) {
              // Distinct ends: of two matching silences a new incident records the later-ending one.
              const s = await createSilence(ctx, orgId, { matchers: m, endsAt: new Date(now.getTime() + (i + 1) * 3_600_000) });
              silenceIds.push(s.id);
            }
            const outcomes: SignalOutcome[] = [];
            for (const g of sc.history) outcomes.push(...(await ingestSignals(ctx, orgId, toInput(g, now))).outcomes);
            for (const i of sc.acknowledge) {
              const { rows } = await ctx.db.query<{ id: string }>(
                `SELECT id FROM alerts WHERE org_id = $1 AND source_id = $2 AND status = 'open' ORDER BY created_at, source_type, notification_kind`,
                [orgId, SOURCES[i]!.sourceId],
              );
              if (rows[0]) await acknowledgeAlert(ctx, orgId, rows[0].id, 'ana');
            }
            return { orgId, silenceIds, outcomes };
          }),
        );
        const batch = sc.batch.map((g) => toInput(g, now));
        const [a, b] = state as [(typeof state)[0], (typeof state)[0]];
        a.outcomes.push(...(await ingestSignals(ctx, a.orgId, batch)).outcomes);
        const { signals } = validateSignals(batch, now);
        b.outcomes.push(...(await ctx.db.tx((q) => applySignalsOneByOne(q, ctx.config.baseUrl, b.orgId, signals, now))));
        expect(await observe(a.orgId, a.outcomes, a.silenceIds)).toEqual(await observe(b.orgId, b.outcomes, b.silenceIds));
      }),
      { numRuns: 60, examples: EXAMPLES.map((e): [Scenario] => [e]) },
    );
  });
});
