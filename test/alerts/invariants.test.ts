/**
 * Property test: random sequences of signals, acknowledgements, resolutions, silences, clock moves
 * and background passes never break the lifecycle's invariants (docs/alerts.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { acknowledgeAlert, ingestSignals, resolveAlert } from '../../src/alerts/lifecycle.js';
import { createSilence, endSilence } from '../../src/alerts/silences.js';
import { runEscalationPass, runReleasePass } from '../../src/alerts/jobs.js';
import { createOrg } from '../../src/orgs/orgs.js';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { signal } from '../helpers/fixtures.js';
import { DomainError } from '../../src/errors.js';

const KEYS = ['cap', 'ds', 'gw'] as const;
type Key = (typeof KEYS)[number];

type Op =
  | { op: 'fail' | 'recover' | 'ack' | 'resolve' | 'silence'; key: Key }
  | { op: 'advance'; minutes: number }
  | { op: 'escalate' | 'release' | 'endSilence' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('fail' as const), key: fc.constantFrom(...KEYS) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('recover' as const, 'ack' as const, 'resolve' as const, 'silence' as const), key: fc.constantFrom(...KEYS) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constantFrom('escalate' as const, 'release' as const, 'endSilence' as const) }) },
);

/** ds is caused by cap; gw stands alone. */
function signalFor(key: Key, kind: 'failure' | 'recovery') {
  const base = { cap: { sourceType: 'Capacity', sourceId: 'cap-1' }, ds: { sourceType: 'Dataset', sourceId: 'ds-1' }, gw: { sourceType: 'Gateway', sourceId: 'gw-1' } }[key];
  return signal({ ...base, kind, notificationKind: 'Failure', causes: key === 'ds' ? [{ sourceType: 'Capacity', sourceId: 'cap-1' }] : undefined });
}

describe('lifecycle invariants (property)', () => {
  let ctx: TestContext;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock('2026-06-15T12:00:00Z');
    ctx = await createTestContext({ clock });
  });
  afterAll(() => ctx.close());

  it('holds for random operation sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const org = await createOrg(ctx, { name: 'prop', escalationMinutes: 30 });
        const silences: string[] = [];
        const openId = async (key: Key) => {
          const s = signalFor(key, 'failure');
          const { rows } = await ctx.db.query<{ id: string }>(
            `SELECT id FROM alerts WHERE org_id = $1 AND source_type = $2 AND source_id = $3 AND status = 'open'`,
            [org.id, s.sourceType, s.sourceId],
          );
          return rows[0]?.id;
        };
        for (const o of ops) {
          switch (o.op) {
            case 'fail':
            case 'recover':
              await ingestSignals(ctx, org.id, signalFor(o.key, o.op === 'fail' ? 'failure' : 'recovery'));
              break;
            case 'ack':
            case 'resolve': {
              const id = await openId(o.key);
              if (!id) break;
              await (o.op === 'ack' ? acknowledgeAlert(ctx, org.id, id) : resolveAlert(ctx, org.id, id)).catch((err) => {
                // A second acknowledgement or a resolve of a resolved alert is a conflict, nothing else.
                if (!(err instanceof DomainError && err.kind === 'conflict')) throw err;
              });
              break;
            }
            case 'silence': {
              const s = signalFor(o.key, 'failure');
              const created = await createSilence(ctx, org.id, { matchers: { sourceId: s.sourceId }, endsAt: new Date(clock.now().getTime() + 20 * 60_000) });
              silences.push(created.id);
              break;
            }
            case 'endSilence':
              if (silences.length) await endSilence(ctx, org.id, silences.shift()!);
              break;
            case 'advance':
              clock.advance(o.minutes * 60_000);
              break;
            case 'escalate':
              await runEscalationPass(ctx);
              break;
            case 'release':
              await runReleasePass(ctx);
              break;
          }
        }

        const { rows: alerts } = await ctx.db.query('SELECT * FROM alerts WHERE org_id = $1', [org.id]);
        const openPerKey = new Map<string, number>();
        for (const a of alerts) {
          if (a.status === 'open') openPerKey.set(a.source_id, (openPerKey.get(a.source_id) ?? 0) + 1);
          expect(a.failure_count).toBeGreaterThanOrEqual(1);
          const { rows: ev } = await ctx.db.query<{ event: string; snapshot: any }>(
            'SELECT event, snapshot FROM alert_events WHERE alert_id = $1 ORDER BY seq',
            [a.id],
          );
          const names = ev.map((e) => e.event);
          // Never an event while suppressed; once released, the story starts with alert.opened.
          if (a.suppressed) expect(names).toEqual([]);
          if (!a.silenced && !a.correlated) expect(names[0]).toBe('alert.opened');
          if (names.length) expect(names[0]).toBe('alert.opened');
          for (const n of ['alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered']) {
            expect(names.filter((x) => x === n).length).toBeLessThanOrEqual(1);
          }
          if (names.includes('alert.recovered')) {
            expect(names.at(-1)).toBe('alert.recovered');
            expect(a.status).toBe('resolved');
          }
          if (names.includes('alert.acknowledged')) expect(a.acknowledged).toBe(true);
          if (names.includes('alert.escalated') && names.includes('alert.acknowledged')) {
            expect(names.indexOf('alert.escalated')).toBeLessThan(names.indexOf('alert.acknowledged'));
          }
          for (const e of ev) {
            expect(e.snapshot.id).toBe(a.id);
            expect(e.snapshot.status).toBe(e.event === 'alert.recovered' ? 'resolved' : 'open');
          }
          if (a.status === 'resolved' && !a.suppressed) expect(names).toContain('alert.recovered');
        }
        for (const n of openPerKey.values()) expect(n).toBe(1);
      }),
      { numRuns: 30 },
    );
  }, 300_000);
});
