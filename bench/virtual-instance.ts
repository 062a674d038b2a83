/**
 * The program of the simulated-clock bench's instance process (forked by bench/instance-process.ts):
 * one Vigia context and collector scheduler on a ManualClock, nothing else in the process, so
 * its memory is the instance's. It answers the bench's messages one at a time: open, pass (at the
 * bench's `now`), memory (after a forced GC), stop.
 */
import { performance } from 'node:perf_hooks';
import { ManualClock } from '../src/clock.js';
import type { AppContext } from '../src/context.js';
import { CollectorScheduler } from '../src/monitoring/engine.js';
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
    case 'open':
      clock = new ManualClock(msg.startMs);
      ctx = await openContext(msg.config, { clock });
      scheduler = new CollectorScheduler(ctx, msg.scheduler);
      return { type: 'ready' };
    case 'pass': {
      if (!clock || !scheduler) throw new Error('pass before open');
      clock.set(msg.now);
      const t = performance.now();
      await scheduler.pass();
      return { type: 'passed', tookMs: performance.now() - t, rssAfter: process.memoryUsage.rss() };
    }
    case 'memory':
      return { type: 'memory', memory: memorySample() };
    case 'stop':
      await close();
      return { type: 'stopped' };
  }
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
