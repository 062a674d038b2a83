/**
 * The rows one dispatcher holds, with explicit state. A claimed row is leased to this worker
 * and is in one of two modes:
 *   ready   — leased, waiting for a free slot (kept so a freed slot starts at once);
 *   running — its attempt is in flight.
 * The bounds: at most `maxInFlight` running rows in the worker and `perDestination` per
 * destination; at most `maxInFlight + prefetch` held rows, `destHold` per destination (the
 * claim's per-destination slots).
 */
import type { ClaimedRow } from '../outbox/index.js';

export type HeldMode = 'ready' | 'running';

interface Held {
  row: ClaimedRow;
  mode: HeldMode;
  /** performance.now() when the row was leased. */
  heldAt: number;
  /** Start of the budget cycle the row was charged to (refunded if given back unstarted). */
  chargedCycle: number;
}

export interface HeldRowsLimits {
  maxInFlight: number;
  perDestination: number;
  prefetch: number;
}

export class HeldRows {
  readonly destHold: number;
  private readonly rows = new Map<string, Held>();
  /** Ready rows in claim order (ids). */
  private readyOrder: string[] = [];
  private runningCount = 0;
  private readonly runningByDest = new Map<string, number>();
  private readonly heldByDest = new Map<string, number>();

  constructor(readonly limits: HeldRowsLimits) {
    this.destHold = limits.perDestination + Math.min(limits.prefetch, Math.floor(limits.perDestination / 2));
  }

  get running(): number {
    return this.runningCount;
  }
  get ready(): number {
    return this.readyOrder.length;
  }
  get isEmpty(): boolean {
    return this.rows.size === 0;
  }
  /** Rows the worker may still claim. */
  get room(): number {
    return this.limits.maxInFlight + this.limits.prefetch - this.rows.size;
  }

  /**
   * Takes a freshly claimed row as ready. False when the row is already held: our own lease ran
   * out while its attempt was still running (a very slow call, or a clock jump) and the claim
   * gave it back to us — never send it twice from one worker.
   */
  hold(row: ClaimedRow, chargedCycle: number): boolean {
    if (this.rows.has(row.id)) return false;
    this.rows.set(row.id, { row, mode: 'ready', heldAt: performance.now(), chargedCycle });
    this.readyOrder.push(row.id);
    bump(this.heldByDest, row.destination_id, 1);
    return true;
  }

  /** Moves ready rows to running, in claim order, while the worker and their destination have slots. */
  startable(): { row: ClaimedRow; waitedMs: number }[] {
    const out: { row: ClaimedRow; waitedMs: number }[] = [];
    const keep: string[] = [];
    for (const id of this.readyOrder) {
      const h = this.rows.get(id)!;
      const dest = h.row.destination_id;
      if (this.runningCount < this.limits.maxInFlight && (this.runningByDest.get(dest) ?? 0) < this.limits.perDestination) {
        h.mode = 'running';
        this.runningCount++;
        bump(this.runningByDest, dest, 1);
        out.push({ row: h.row, waitedMs: performance.now() - h.heldAt });
      } else keep.push(id);
    }
    this.readyOrder = keep;
    return out;
  }

  /** A running row's attempt ended (outcome queued or row dropped). Returns rows still held at its destination. */
  finish(row: ClaimedRow): number {
    const h = this.rows.get(row.id);
    if (h?.mode !== 'running') return this.heldByDest.get(row.destination_id) ?? 0;
    this.rows.delete(row.id);
    this.runningCount--;
    bump(this.runningByDest, row.destination_id, -1);
    return bump(this.heldByDest, row.destination_id, -1);
  }

  /** Removes every ready row (graceful stop gives them back) with the cycle each was charged to. */
  takeReady(): { row: ClaimedRow; chargedCycle: number }[] {
    const out = this.readyOrder.map((id) => this.rows.get(id)!);
    this.readyOrder = [];
    for (const h of out) {
      this.rows.delete(h.row.id);
      bump(this.heldByDest, h.row.destination_id, -1);
    }
    return out.map((h) => ({ row: h.row, chargedCycle: h.chargedCycle }));
  }

  /** The claim's view: destinations at their hold bound (skipped) and the slots the others have left. */
  destinationSlots(): { busy: string[]; partial: Map<string, number> } {
    const busy: string[] = [];
    const partial = new Map<string, number>();
    for (const [id, n] of this.heldByDest) {
      if (n >= this.destHold) busy.push(id);
      else partial.set(id, this.destHold - n);
    }
    return { busy, partial };
  }
}

function bump(m: Map<string, number>, key: string, by: number): number {
  const n = (m.get(key) ?? 0) + by;
  if (n <= 0) m.delete(key);
  else m.set(key, n);
  return Math.max(0, n);
}
