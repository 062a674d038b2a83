/**
 * Rows a platform served that a collector could not believe (a figure out of range, a malformed
 * event): each run that skipped some says how many and why in the collector's status
 * (`lastRejected`, `lastRejectedNote`, through CollectorRun.reportProgress). When runs keep
 * rejecting rows — REJECTED_RUNS in a row — the `Tenant` incident `PlatformDataRejected` opens
 * (severity info: a warning, since the other rows are read); it recovers at the first run that
 * rejects none. The streak lives in the collector's state, committed with its run.
 */
import type { SignalInput } from '../../alerts/signals.js';
import type { StateChange } from './output.js';

export const DATA_REJECTED = 'PlatformDataRejected';
export const REJECTED_KEY = 'rejected';
/** Runs in a row that rejected rows before the incident opens. */
export const REJECTED_RUNS = 3;

export interface RejectedMemory {
  /** When the current streak began (ISO). */
  since: string;
  runs: number;
  /** The incident is open for this streak. */
  reported: boolean;
  /** The open incident's tenant (so a deleted connection can resolve it). */
  tenant: { id: string; name: string };
}

function rejectedSignal(kind: 'failure' | 'recovery', collector: string, tenant: { id: string; name: string }, note: string, at: Date): SignalInput {
  const failure = kind === 'failure';
  return {
    sourceType: 'Tenant',
    sourceId: tenant.id,
    sourceName: tenant.name,
    kind,
    notificationKind: DATA_REJECTED,
    severity: 'info',
    title: failure
      ? { en: `Vigia is skipping rows the platform serves: ${tenant.name}`, 'pt-BR': `O Vigia está descartando linhas servidas pela plataforma: ${tenant.name}` }
      : { en: `The platform's rows are readable again: ${tenant.name}`, 'pt-BR': `As linhas da plataforma voltaram a ser lidas: ${tenant.name}` },
    message: failure
      ? {
          en: `The ${collector} collector skipped rows in ${REJECTED_RUNS} runs in a row because their figures cannot be true (the other rows are read): ${note}. What to do: look at the source of these rows (the event table, the app's model); the collector's status shows the last run's count.`,
          'pt-BR': `O coletor ${collector} descartou linhas em ${REJECTED_RUNS} execuções seguidas porque seus valores não podem ser verdadeiros (as outras linhas são lidas): ${note}. O que fazer: verifique a origem dessas linhas (a tabela de eventos, o modelo do app); o status do coletor mostra a contagem da última execução.`,
        }
      : { en: `The ${collector} collector's last run skipped no row.`, 'pt-BR': `A última execução do coletor ${collector} não descartou nenhuma linha.` },
    occurredAt: at,
  };
}

/** This run's step of the streak: the signals to commit and the state changes to keep. */
export function rejectedStep(prev: RejectedMemory | undefined, rejected: { count: number; note: string | null }, collector: string, tenant: { id: string; name: string }, now: Date): { signals: SignalInput[]; changes: StateChange[] } {
  if (rejected.count === 0) {
    if (!prev) return { signals: [], changes: [] };
    const signals = prev.reported ? [rejectedSignal('recovery', collector, prev.tenant, '', now)] : [];
    return { signals, changes: [{ key: REJECTED_KEY, value: null }] };
  }
  const runs = (prev?.runs ?? 0) + 1;
  const raise = runs >= REJECTED_RUNS && !prev?.reported;
  const who = { id: tenant.id, name: tenant.name };
  const next: RejectedMemory = { since: prev?.since ?? now.toISOString(), runs, reported: (prev?.reported ?? false) || raise, tenant: who };
  return { signals: raise ? [rejectedSignal('failure', collector, who, rejected.note ?? '', now)] : [], changes: [{ key: REJECTED_KEY, value: next }] };
}

/** The recovery owed when the connection is deleted with the incident open. */
export function rejectedRelease(state: Map<string, unknown>, collector: string, now: Date): SignalInput[] {
  const m = state.get(REJECTED_KEY) as RejectedMemory | undefined;
  return m?.reported ? [rejectedSignal('recovery', collector, m.tenant, '', now)] : [];
}
