/**
 * Chat grouping benchmark (`npm run bench -- chat`; docs/notifications.md, "No floods"): 1,000
 * incidents opened in one burst (one signals call) for an organization with 10 chat destinations
 * (5 Teams, 5 Slack, the HTTPS fakes of test/fakes/chat.ts, which validate every body), the real
 * dispatcher on PostgreSQL with the wall clock. Measured: messages per destination (target: at
 * most one per group window), time from the burst's commit to each message (target: within the
 * window + 5 s), and the time until all 10,000 deliveries are recorded as succeeded. Env:
 * BENCH_CHAT_WINDOW (groupWaitSeconds, default 30), BENCH_CHAT_INCIDENTS (1000),
 * BENCH_NO_WRITE=1 to skip writing bench/RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/clock.js';
import type { AppContext } from '../src/context.js';
import { createPgDatabase } from '../src/db/pg.js';
import { migrate } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { Sealer } from '../src/secrets/sealing.js';
import { createOrg } from '../src/orgs/orgs.js';
import { createDestination } from '../src/delivery/destination-service.js';
import { ingestSignals } from '../src/alerts/lifecycle.js';
import { startDispatcher } from '../src/delivery/dispatcher.js';
import { SlackFake, TeamsFake } from '../test/fakes/chat.js';
import type { FakeReply, RecordedRequest } from '../test/fakes/fake-server.js';
import { benchConfig } from './delivery.js';
import { createScratchDatabase, machine } from './kit.js';
import { writeResultsSection } from './results-file.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Fakes that stamp when each accepted message arrived. */
class TimedTeams extends TeamsFake {
  readonly at: number[] = [];
  protected override handle(r: RecordedRequest): FakeReply {
    const a = super.handle(r);
    if (a.status === 202) this.at.push(Date.now());
    return a;
  }
}
class TimedSlack extends SlackFake {
  readonly at: number[] = [];
  protected override handle(r: RecordedRequest): FakeReply {
    const a = super.handle(r);
    if (a.status === 200) this.at.push(Date.now());
    return a;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runChatBench(): Promise<void> {
  const windowS = Number(process.env.BENCH_CHAT_WINDOW ?? 30);
  const n = Number(process.env.BENCH_CHAT_INCIDENTS ?? 1000);
  const database = await createScratchDatabase();
  const key = randomBytes(32);
  const db = createPgDatabase(database.url, undefined, { max: 10 });
  const ctx: AppContext = { config: benchConfig(key, database.url), db, clock: systemClock, log: createLogger('warn'), sealer: new Sealer(key) };
  const fakes = [...Array.from({ length: 5 }, () => new TimedTeams()), ...Array.from({ length: 5 }, () => new TimedSlack())];
  const load0 = loadavg()[0]!;
  try {
    await migrate(db);
    await Promise.all(fakes.map((f) => f.start()));
    const org = await createOrg(ctx, { name: 'Chat bench' });
    for (const [i, f] of fakes.entries()) {
      const kind = f instanceof TeamsFake ? 'teams' : 'slack';
      await createDestination(ctx, org.id, { name: `${kind} ${i}`, kind, credentials: { webhookUrl: f.webhookUrl() }, config: { groupWaitSeconds: windowS } });
    }
    const worker = await startDispatcher(ctx);
    const signals = Array.from({ length: n }, (_, i) => ({
      sourceType: 'Dataset', sourceId: `ds-${i}`, sourceName: `Model ${i}`, kind: 'failure', notificationKind: 'RefreshFailed',
      severity: 'error', title: `Refresh failed: Model ${i}`, message: 'The gateway gw-1 is offline.',
    }));
    const t0 = Date.now();
    const { outcomes } = await ingestSignals(ctx, org.id, signals);
    const committed = Date.now();
    if (outcomes.filter((o) => o.outcome === 'opened').length !== n) throw new Error('not every signal opened an incident');
    // Wait for every delivery to settle (or the window + 60 s).
    let settledAt = 0;
    const deadline = committed + (windowS + 60) * 1000;
    while (Date.now() < deadline) {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries WHERE status = 'succeeded' AND NOT test");
      if (rows[0]!.n === n * fakes.length) {
        settledAt = Date.now();
        break;
      }
      await sleep(200);
    }
    await worker.stop();
    const perDest = fakes.map((f) => f.at.length);
    const latencies = fakes.flatMap((f) => f.at.map((t) => (t - committed) / 1000));
    const violations = fakes.reduce((s, f) => s + f.violations.length, 0);
    const maxLatency = Math.max(...latencies);
    const fromBurst = Math.max(...fakes.flatMap((f) => f.at.map((t) => (t - t0) / 1000)));
    const rows = [
      `| burst: ${n} incidents in one signals call, committed in | ${((committed - t0) / 1000).toFixed(2)} s | |`,
      `| messages per destination (10 destinations: 5 Teams, 5 Slack) | ${Math.min(...perDest)}–${Math.max(...perDest)} | ≤ 1 per window |`,
      `| commit → each message, slowest of 10 (window ${windowS} s) | ${maxLatency.toFixed(2)} s | ≤ ${windowS + 5} s |`,
      `| burst start → each message, slowest of 10 (the window starts when the incidents open, inside the burst's transaction) | ${fromBurst.toFixed(2)} s | |`,
      `| commit → all ${n * fakes.length} deliveries recorded succeeded | ${settledAt ? `${((settledAt - committed) / 1000).toFixed(2)} s` : 'not within window + 60 s'} | |`,
      `| contract violations at the fakes | ${violations} | 0 |`,
    ];
    const section = [
      '## Chat grouping (Teams and Slack)',
      '',
      `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}, PostgreSQL on the same machine, 1-minute load ${load0.toFixed(2)} before.`,
      'Command: `npm run bench -- chat`. The real dispatcher and wall clock; the fakes are HTTPS servers on loopback that validate',
      'each body against contracts/teams-workflows.json and contracts/slack-webhook.json.',
      '',
      '| Measure | Result | Target |',
      '|---|---|---|',
      ...rows,
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (process.env.BENCH_NO_WRITE !== '1') writeResultsSection(path.join(here, 'RESULTS.md'), 'Chat grouping (Teams and Slack)', section);
  } finally {
    await Promise.all(fakes.map((f) => f.stop()));
    await db.close();
    await database.drop();
  }
}
