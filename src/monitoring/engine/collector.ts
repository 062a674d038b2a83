/** What a collector is given for one run, and what it must be. */
import type { AppContext } from '../../context.js';
import type { SignalInput } from '../../alerts/signals.js';
import type { RunProgress } from './collector-behind.js';
import type { CollectorName } from '../connection/collector-names.js';
import type { LineageChanges } from '../lineage/lineage.js';
import type { EntityState, StateChange } from './output.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { TenantRow } from '../connection/tenant-row.js';
import type { FencedWrite, Reader } from './reader.js';

/** What of the application a run sees: its clock and its logger — never the database (reader.ts). */
export type RunContext = Pick<AppContext, 'clock' | 'log'>;

export interface CollectorRun {
  ctx: RunContext;
  tenant: TenantRow;
  client: PlatformClient;
  /** The collector's interval for this tenant: what a run's share of an hourly budget is spread over. */
  intervalSeconds: number;
  /**
   * The collector's remembered state (key → value) as of the start of the run, but for the keys
   * under its entityPrefixes: those are read on demand through `entities`.
   */
  state: Map<string, unknown>;
  /** The per-entity state (keys under Collector.entityPrefixes), read as the run needs it. */
  entities: EntityState;
  /** What the run reads the database with (no transaction, no writes: reader.ts). */
  reader: Reader;
  /**
   * Hands a write to the run's commit (capacity load history, hot marks, inventory, costs): it is
   * applied in the commit's transaction after the lease fence, or never when the run lost its
   * lease. Call before commit; a run that staged writes and did not commit has them committed
   * (with no signals) when it returns.
   */
  write(w: FencedWrite): void;
  /**
   * For collectors that read resources one by one: what this run read and the due resources it
   * left for a later run (shown as lastPolled/lastDeferred; a collector that keeps deferring raises
   * CollectorBehind). Call before commit; the last report counts. A collector that skips rows the
   * platform served as unbelievable reports them here too (`rejected`, `rejectedNote`: the
   * collector's lastRejected and lastRejectedNote).
   */
  reportProgress(progress: RunProgress): void;
  /**
   * Commits signals, state changes and the lineage read together (call once, at the end of the
   * run); throws LeaseLostError, having written nothing, when the run no longer holds its row.
   */
  commit(signals: SignalInput[], changes: StateChange[], lineage?: LineageChanges): Promise<void>;
  /**
   * This run has not seen the tenant whole yet (admin mode's freshness before the first full
   * scan): during a new tenant's first pass its findings still open "found at connection", and
   * the pass — and the TenantConnected summary — waits for a later run. Call before commit.
   */
  firstPassGoesOn(): void;
  /** Aborted when the run lost its lease: stop calling the platform (calls then fail at once). */
  signal: AbortSignal;
}

export interface Collector {
  name: CollectorName;
  run(run: CollectorRun): Promise<void>;
  /**
   * Key prefixes of per-entity state (one key per model, workspace…) that a run reads on demand
   * (CollectorRun.entities) instead of finding in CollectorRun.state: at enterprise size a
   * collector that touches a slice of 200,000 models a run holds that slice, not all of them.
   */
  entityPrefixes?: readonly string[];
  /**
   * The recoveries owed when everything the collector remembers is gone at once (the tenant
   * connection is deleted): each open incident it signalled is resolved.
   */
  releaseAll?(state: Map<string, unknown>, now: Date): SignalInput[];
  /**
   * The state releaseAll needs, when it is not all of it: only keys under `prefix` whose value
   * has `flag` true (an incident is open for them). Tenant removal then reads those rows only.
   */
  releaseOnly?: readonly { prefix: string; flag: string }[];
}
