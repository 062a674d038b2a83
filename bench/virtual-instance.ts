/**
 * The program of the simulated-clock bench's instance process (forked by bench/instance-process.ts):
 * one Vigia context and collector scheduler on a ManualClock, nothing else in the process, so
 * its memory is the instance's. It answers the bench's messages one at a time: open, pass (at the
 * bench's `now`), memory (after a forced GC), stop.
 */
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../src/clock.js';
import type { AppContext } from '../src/context.js';
import { CollectorScheduler } from '../src/monitoring/scheduler.js';
import { DEFAULT_COLLECTORS } from '../src/monitoring/registry.js';
import { makeRefreshesCollector } from '../src/monitoring/sources/refreshes/refreshes.js';
import type { Collector } from '../src/monitoring/engine/collector.js';
import { openContext } from '../src/service.js';
import { type InstanceReply, type InstanceRequest, memorySample } from './instance-process.js';

let clock: ManualClock | undefined;
let ctx: AppContext | undefined;
let scheduler: CollectorScheduler | undefined;

const reply = (r: InstanceReply) => new Promise<void>((resolve) => process.send!(r, () => resolve()));

async function close(): Promise<void> {
  await scheduler?.stop();
  scheduler = undefined;
  await ctx?.db.close();
  ctx = undefined;
}

async function handle(msg: InstanceRequest): Promise<InstanceReply> {
  switch (msg.type) {
    case 'open': {
      clock = new ManualClock(msg.startMs);
      ctx = await openContext(msg.config, { clock });
      // BENCH_REFRESHES_DUE=off: the refreshes collector without the due models' reads (the baseline of issue 38 item 5).
      const collectors = process.env.BENCH_REFRESHES_DUE === 'off' ? DEFAULT_COLLECTORS.map((c) => (c.name === 'refreshes' ? makeRefreshesCollector({ dueReads: false }) : c)) : DEFAULT_COLLECTORS;
      scheduler = new CollectorScheduler(ctx, process.env.BENCH_COLLECTOR_MEMORY ? { ...msg.scheduler, maxConcurrent: 1, collectors: collectors.map(measured) } : { ...msg.scheduler, collectors });
      return { type: 'ready' };
    }
    case 'pass': {
      if (!clock || !scheduler) throw new Error('pass before open');
      clock.set(msg.now);
      const t = performance.now();
      await scheduler.pass();
      return { type: 'passed', tookMs: performance.now() - t, rssAfter: process.memoryUsage.rss() };
    }
    case 'memory':
      return { type: 'memory', memory: await memorySample() };
    case 'stop':
      await close();
      return { type: 'stopped' };
  }
}

const MiB = (n: number) => Math.round(n / 1048576);
let lastAfter = 0;

/** Diagnostic (BENCH_COLLECTOR_MEMORY=1, one run at a time): each run's memory to stderr. */
function measured(c: Collector): Collector {
  return {
    ...c,
    run: async (run) => {
      const before = process.memoryUsage();
      let peak = { rss: before.rss, heap: before.heapUsed, ext: before.external };
      const sample = () => {
        const m = process.memoryUsage();
        peak = { rss: Math.max(peak.rss, m.rss), heap: Math.max(peak.heap, m.heapUsed), ext: Math.max(peak.ext, m.external) };
      };
      const timer = setInterval(sample, 20);
      let changes = 0;
      let signals = 0;
      const t = performance.now();
      try {
        await c.run({
          ...run,
          commit: async (s, ch, l) => {
            sample();
            changes = ch.length;
            signals = s.length;
            await run.commit(s, ch, l);
            sample();
          },
        });
      } finally {
        clearInterval(timer);
        sample();
        const after = process.memoryUsage();
        lastAfter = after.rss;
        process.stderr.write(
          `[mem] ${c.name} ${Math.round(performance.now() - t)}ms state=${run.state.size} changes=${changes} signals=${signals} rss prevEnd ${MiB(lastAfter)} start ${MiB(before.rss)}->${MiB(after.rss)} peak ${MiB(peak.rss)} heapPeak ${MiB(peak.heap)} extPeak ${MiB(peak.ext)}\n`,
        );
      }
    },
  };
}

async function fail(err: unknown): Promise<never> {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  if (process.connected) await reply({ type: 'error', message }).catch(() => undefined);
  await close().catch(() => undefined);
  process.exit(1);
}

if (!process.send) {
  process.stderr.write('bench/virtual-instance.ts runs as a forked child of the collect bench\n');
  process.exit(2);
}
// The bench went away: no orphan instance.
process.on('disconnect', () => void close().finally(() => process.exit(1)));
process.on('unhandledRejection', (err) => void fail(err));
process.on('message', (m) => {
  const msg = m as InstanceRequest;
  handle(msg)
    .then(async (r) => {
      await reply(r);
      if (msg.type === 'stop') process.exit(0);
    })
    .catch(fail);
});
