/**
 * The seam for destination kinds that do not go out through the guarded HTTP client (today
 * `email`, through the instance's SMTP relay). Like a connector, a deliverer turns one attempt
 * into a ConnectorResult; unlike one, it owns its transport (a pooled SMTP connection) and may
 * read and write its own rows (which recipients took the message). Retries, history, health,
 * ordering behind the incident's opening, redelivery, filters and silences stay the pipeline's.
 */
import type { AppContext } from '../context.js';
import type { ConnectorResult, DelivererKind, KindRules } from './connectors/types.js';

export interface DelivererAttempt {
  /** The delivery's id (stable across attempts and redeliveries). */
  id: string;
  event: string;
  /** The stored delivery body (JSON text). */
  body: string;
  destinationId: string;
  config: Record<string, unknown>;
  /** What the incident's opening delivery left at this destination (e-mail: its Message-ID). */
  ref: Record<string, unknown> | null;
  attempt: number;
  previousOutcomeUnknown: boolean;
  /**
   * Kinds that group openings (KindRules.groupsOpenings): the stored bodies of the group's other
   * openings this attempt carries (src/delivery/grouping.ts), sent in the same message; each of
   * their deliveries gets this attempt's outcome.
   */
  groupBodies?: string[];
}

/** A destination's Test action, in the shape of POST …/destinations/{id}/test. */
export interface DelivererTestResult {
  ok: boolean;
  steps: { action: 'send'; ok: boolean; error?: string }[];
  manualCloseRequired: false;
  message: string;
}

export interface Deliverer extends KindRules {
  kind: DelivererKind;
  deliver(ctx: AppContext, attempt: DelivererAttempt): Promise<ConnectorResult>;
  test(ctx: AppContext, destination: { id: string; orgId: string; config: Record<string, unknown> }): Promise<DelivererTestResult>;
  /** Closes what the deliverer keeps open for `ctx` (pooled connections); called when the worker stops. */
  close(ctx: AppContext): Promise<void>;
}
