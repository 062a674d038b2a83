/** Plain-data shapes of the simulator's capacity load (src/tenant-sim/capacity-load.ts) and Eventhouse faults. */

export type LoadStage = 'normal' | 'high' | 'interactiveDelay' | 'interactiveRejection' | 'backgroundRejection';

/** One row of the raw event table (the CloudEvent as the Eventstream lands it) and when it was ingested. */
export interface EventRow {
  ingestedAt: number;
  specversion: number;
  source: string;
  time: string;
  id: string;
  subject: string;
  dataschemaversion: number;
  type: string;
  /** The payload; a string when an injected event's payload is not JSON at all. */
  data: Record<string, unknown>;
}

export interface LoadSegment {
  from: number;
  stage: LoadStage;
  heavyItemId: string | null;
  /** Carry-forward set at the segment's start (window budgets), or null to keep it. */
  setCarry: number | null;
}

export interface SimCapacityLoad {
  origin: number;
  baseline: number;
  segments: LoadSegment[];
  /** Window indices whose events are lost / delivered twice. */
  dropped: number[];
  duplicated: number[];
  /** State changes a test made (pause, resume), by time. */
  transitions: Array<{ at: number; active: boolean; state: string; reason: string }>;
  /** Computed windows, from `origin`, and what the model carries between them. */
  rows: EventRow[];
  next: number;
  carry: number;
  overloaded: string | null;
  /** Rows ingested in [from, to) become visible to queries `ms` after their ingestion time. */
  late?: Array<{ from: number; to: number; ms: number }>;
}

/** The next `count` queries of the Eventhouse fail the way Kusto fails (src/tenant-sim/eventhouse-faults.ts). */
export interface EventhouseFault {
  kind: 'semantic' | 'partial';
  count: number;
}

