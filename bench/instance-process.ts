/**
 * The simulated-clock bench's Vigia instance in a process of its own (bench/virtual-instance.ts),
 * so its memory is measured apart from the tenant simulator and the bench's bookkeeping, which
 * stay in the bench's process. The instance's clock is set to the bench's `now` before every
 * pass: both processes see the same simulated time.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Config } from '../src/config.js';
import type { SchedulerOptions } from '../src/monitoring/scheduler.js';

/** process.memoryUsage() of one process after a forced GC (when --expose-gc), and its peak RSS so far. */
export interface MemorySample {
  rss: number;
  heapUsed: number;
  /** V8 heap committed (heapUsed plus pages not yet given back). */
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** process.resourceUsage().maxRSS in bytes: the highest RSS of the process so far, GC or not. */
  peakRss: number;
}

export type InstanceRequest =
  | { type: 'open'; config: Config; startMs: number; scheduler: Omit<SchedulerOptions, 'collectors' | 'transport'> }
  | { type: 'pass'; now: number }
  | { type: 'memory' }
  | { type: 'stop' };

export type InstanceReply =
  | { type: 'ready' }
  | { type: 'passed'; tookMs: number; rssAfter: number }
  | { type: 'memory'; memory: MemorySample }
  | { type: 'stopped' }
  | { type: 'error'; message: string };

/**
 * V8 gives the pages a collection freed back to the system from a background task, so RSS read
 * right after gc() still holds much of the last pass's heap (a 460 MiB reading fell to 93 MiB a
 * second later). A sample waits this long after the first collection and collects again.
 */
const SETTLE_MS = 1_000;

/** This process's memory, measured the way the instance measures its own: after a forced GC and the settle. */
export async function memorySample(): Promise<MemorySample> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, peakRss: process.resourceUsage().maxRSS * 1024 };
}

export class InstanceProcess {
  private readonly child: ChildProcess;
  private pending: { resolve(r: InstanceReply): void; reject(e: Error): void } | undefined;
  private exited: Promise<void>;
  private alive = true;

  private constructor(nodeArgs: readonly string[]) {
    // Same execArgv as the bench (tsx's loader, --expose-gc) and same environment (the test CA),
    // plus what an operator would give the instance (`--max-old-space-size`, docs/monitoring.md).
    this.child = fork(fileURLToPath(new URL('./virtual-instance.ts', import.meta.url)), [], {
      execArgv: [...process.execArgv, ...nodeArgs],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    this.child.on('message', (m) => {
      const p = this.pending;
      this.pending = undefined;
      const reply = m as InstanceReply;
      if (reply.type === 'error') p?.reject(new Error(`instance process: ${reply.message}`));
      else p?.resolve(reply);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.alive = false;
        this.pending?.reject(new Error(`instance process exited (code ${code}, signal ${signal})`));
        this.pending = undefined;
        resolve();
      });
    });
  }

  /** Forks the instance and opens its context and scheduler; the tenant must exist before its first pass. */
  static async open(config: Config, startMs: number, scheduler: Omit<SchedulerOptions, 'collectors' | 'transport'>, nodeArgs: readonly string[] = []): Promise<InstanceProcess> {
    const instance = new InstanceProcess(nodeArgs);
    try {
      await instance.request({ type: 'open', config, startMs, scheduler });
    } catch (err) {
      await instance.kill();
      throw err;
    }
    return instance;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** One scheduler pass at simulated time `now`; resolves with the pass's real time in the instance and its RSS right after (no GC). */
  async pass(now: number): Promise<{ tookMs: number; rssAfter: number }> {
    const r = await this.request({ type: 'pass', now });
    if (r.type !== 'passed') throw new Error(`instance process: unexpected reply ${r.type}`);
    return { tookMs: r.tookMs, rssAfter: r.rssAfter };
  }

  async memory(): Promise<MemorySample> {
    const r = await this.request({ type: 'memory' });
    if (r.type !== 'memory') throw new Error(`instance process: unexpected reply ${r.type}`);
    return r.memory;
  }

  /** Stops the scheduler, closes the instance's database and waits for the process to exit. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    await this.request({ type: 'stop' });
    await this.waitExit(30_000);
  }

  /** For `finally`: a clean stop if the process still answers, else SIGKILL; never leaves it running. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    try {
      if (this.pending === undefined && this.child.connected) {
        await Promise.race([this.request({ type: 'stop' }), new Promise((_, reject) => setTimeout(() => reject(new Error('stop timed out')), 30_000).unref())]);
        await this.waitExit(10_000);
      }
    } catch {
      // killed below
    }
    if (this.alive) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  private async waitExit(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
    if (this.alive) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** One request at a time: the bench waits for each answer before the next. */
  private request(msg: InstanceRequest): Promise<InstanceReply> {
    if (!this.alive) return Promise.reject(new Error('instance process is not running'));
    if (this.pending) return Promise.reject(new Error('instance process: a request is already in flight'));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.child.send(msg, (err) => {
        if (err && this.pending) {
          this.pending = undefined;
          reject(err);
        }
      });
    });
  }
}
