/**
 * Writes finished attempts back in batches. One batch at a time: attempts finishing meanwhile
 * join the next one. Webhook-only batches are one autocommit statement; batches with connector
 * deliveries (references, held events) are one transaction. While the database is unavailable
 * the outcomes are kept and retried; the leases protect the rows meanwhile.
 */
import type { Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import { recordAttempt } from '../metrics.js';
import { applyOutcomes, needsTransaction, type FinishedAttempt } from './outcomes.js';

export interface OutcomeWriterOptions {
  db: Pick<Database, 'query' | 'tx'>;
  log: Logger;
  workerId: string;
  scheduleMs: readonly number[];
  /** The automatic disabling rule's duration (null: off). */
  autoDisableAfterMs: number | null;
  now: () => Date;
  /** Rows written per batch at most. */
  batchSize: number;
  /** Called after a batch that scheduled a retry (its due time may be the earliest now). */
  onRetryScheduled: () => void;
}

const RETRY_WRITE_AFTER_MS = 1_000;
/** A connector outcome whose incident is being recorded right now is written this much later. */
const DEFERRED_WRITE_AFTER_MS = 50;
/** At shutdown, give up writing after this long; the leases expire and the rows come back. */
const STOP_GRACE_MS = 15_000;

export class OutcomeWriter {
  private readonly queue: FinishedAttempt[] = [];
  private flushing: Promise<void> | null = null;
  private giveUpAt = Infinity;

  constructor(private readonly o: OutcomeWriterOptions) {}

  /** Nothing queued and no batch being written. */
  get idle(): boolean {
    return this.queue.length === 0 && !this.flushing;
  }

  /** Queues an outcome for the next batch. */
  push(attempt: FinishedAttempt): void {
    this.queue.push(attempt);
    this.flush();
  }

  /** From now on, stop retrying a failing write after the shutdown grace period. */
  stopping(): void {
    this.giveUpAt = Date.now() + STOP_GRACE_MS;
  }

  /** Resolves once everything queued so far is written. */
  async drained(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private flush(): void {
    if (this.flushing) return;
    this.flushing = this.writeAll().finally(() => {
      this.flushing = null;
      if (this.queue.length > 0) this.flush();
    });
  }

  private async writeAll(): Promise<void> {
    await new Promise((r) => setImmediate(r)); // let siblings of this batch finish first
    let retryScheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.o.batchSize);
      try {
        const { retry, deferred } = await this.write(batch);
        retryScheduled ||= retry;
        if (deferred.length > 0) {
          // Their incidents' fan-out holds the incident lock for a moment (its transaction is
          // open): write them once it has committed. The leases keep the rows meanwhile.
          this.o.log.debug({ deferred: deferred.length }, 'connector outcomes deferred: their incidents are being recorded');
          await new Promise((r) => setTimeout(r, DEFERRED_WRITE_AFTER_MS));
          if (Date.now() > this.giveUpAt) this.o.log.error({ lost: deferred.length }, 'giving up writing outcomes at shutdown; leases will expire');
          else this.queue.push(...deferred);
        }
      } catch (err) {
        this.queue.unshift(...batch);
        this.o.log.warn({ err: (err as Error).message }, 'writing outcomes failed; retrying');
        await new Promise((r) => setTimeout(r, RETRY_WRITE_AFTER_MS));
        if (Date.now() > this.giveUpAt) {
          this.o.log.error({ lost: this.queue.length }, 'giving up writing outcomes at shutdown; leases will expire');
          this.queue.length = 0;
        }
      }
    }
    if (retryScheduled) this.o.onRetryScheduled();
  }

  /** One batch; returns whether it scheduled a retry, and the outcomes to write in a later batch. */
  private async write(batch: FinishedAttempt[]): Promise<{ retry: boolean; deferred: FinishedAttempt[] }> {
    const write = { workerId: this.o.workerId, now: this.o.now(), scheduleMs: this.o.scheduleMs, autoDisableAfterMs: this.o.autoDisableAfterMs };
    const { outcomes: results, autoDisabled, deferred } = needsTransaction(batch)
      ? await this.o.db.tx((q) => applyOutcomes(q, batch, write))
      : await applyOutcomes(this.o.db, batch, write);
    for (const d of autoDisabled) {
      this.o.log.warn(
        { orgId: d.orgId, destinationId: d.destinationId, consecutiveFailures: d.consecutiveFailures, failingSince: d.failingSince.toISOString() },
        'destination disabled automatically: its deliveries keep failing',
      );
    }
    const byId = new Map(batch.map((a) => [a.id, a]));
    for (const r of results) {
      const a = byId.get(r.id)!;
      recordAttempt(a.kind, r.status === 'pending' ? 'retry' : r.status, a.durationMs);
    }
    return { retry: results.some((r) => r.status === 'pending'), deferred };
  }
}
