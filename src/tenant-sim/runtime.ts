/** What the simulator's request handling shares: its state, Entra, limits, faults and records. */
import type { Faults, SimControl } from './control.js';
import type { Entra } from './entra.js';
import type { Limits } from './limits.js';
import type { LongRunningOperation } from './reply.js';
import type { ScannerControl } from './scanner.js';
import type { RecordedRequest, ScannerBook, SimState } from './types.js';

export interface SimRuntime {
  origin: string;
  strict: boolean;
  entra: Entra;
  limits: Limits;
  faults: Faults;
  requests: RecordedRequest[];
  violations: string[];
  control: SimControl & ScannerControl;
  controlOperations: readonly string[];
  state: () => SimState;
  now: () => number;
  fabricPageSize: number;
  fabricAdminPageSize: number;
  costPageRows: number;
  /** Fabric long-running operations: id → result and polls. */
  operations: Map<string, LongRunningOperation>;
  /** Power BI scanner scans and faults. */
  scanner: ScannerBook;
}
