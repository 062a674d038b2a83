/**
 * The Test action of a connector destination (SPEC §4.2 rule 2, CONTRACT §2):
 *
 *   runConnectorTest(connector, destination, send, now) → Promise<ConnectorTestResult>
 *
 *   - connector:   the destination's Connector (getConnector(kind)).
 *   - destination: { id, config, credentials } with credentials opened, as in ConnectorDelivery.
 *   - send:        the pipeline's guarded Send (it may throw on timeout/network failure).
 *   - now:         the clock's current time (sample timestamps and ids).
 *
 * It opens a sample incident (a body with `test: true`, event alert.opened) and then closes it
 * (alert.recovered, with the reference the opening returned). The result is the CONTRACT shape
 * `{ ok, steps: [{ action: 'open'|'close', ok, statusCode?, error? }], manualCloseRequired, message }`
 * with `message` in Portuguese. When the open succeeded and the close did not, the sample
 * incident is still open at the vendor: manualCloseRequired is true and the message asks the
 * user to close it by hand. Nothing is stored; this is a synchronous check for the console.
 *
 * Also accepted, for the pipeline's route: runConnectorTest(ctx, destinationRow) — it looks the
 * connector up by row.kind, opens row.credentials_sealed with ctx.sealer, builds the guarded send
 * for ctx (src/delivery/guarded-http.ts createGuardedSend) and uses ctx.clock and ctx.config.baseUrl.
 */
import { randomBase62 } from '../../ids.js';
import type { AppContext } from '../../context.js';
import { getConnector } from './index.js';
import type { AlertSnapshot } from '../../alerts/snapshot.js';
import type { Connector, ConnectorDelivery, ConnectorResult, DeliveryBody, Send } from './types.js';
import { texts } from './texts.js';

export interface ConnectorTestStep {
  action: 'open' | 'close';
  ok: boolean;
  statusCode?: number;
  error?: string;
}

export interface ConnectorTestResult {
  ok: boolean;
  steps: ConnectorTestStep[];
  manualCloseRequired: boolean;
  message: string;
}

export interface ConnectorTestDestination {
  id: string;
  config: Record<string, unknown>;
  credentials: Record<string, string>;
}

/** The sample incident; `baseUrl` is VIGIA_BASE_URL when the caller knows it. */
export function sampleAlert(now: Date, baseUrl = 'https://vigia.invalid'): AlertSnapshot {
  const id = `test_${now.getTime().toString(36)}${randomBase62(8)}`;
  return {
    id,
    title: 'Incidente de teste do Vigia',
    message: 'Este incidente foi criado pela ação "Testar" do Vigia para verificar a integração. Pode ser ignorado.',
    sourceType: 'Gateway',
    sourceId: 'vigia-teste',
    workspaceName: null,
    capacityName: null,
    severity: 'info',
    status: 'open',
    acknowledged: false,
    openedAt: now.toISOString(),
    resolvedAt: null,
    failureCount: 1,
    url: `${baseUrl.replace(/\/+$/, '')}/alerts/${id}`,
  };
}

/** Runs one step; a throw from send (timeout, network) becomes a failed step with a generic text. */
async function step(connector: Connector, delivery: ConnectorDelivery, send: Send): Promise<ConnectorResult> {
  try {
    return await connector.deliver(delivery, send);
  } catch {
    return { outcome: 'retry', error: 'no response (timeout or connection failure)' };
  }
}

function toStep(action: 'open' | 'close', r: ConnectorResult): ConnectorTestStep {
  return {
    action,
    ok: r.outcome === 'succeeded',
    ...(r.statusCode !== undefined ? { statusCode: r.statusCode } : {}),
    ...(r.outcome !== 'succeeded' ? { error: r.error } : {}),
  };
}

function describeRef(ref: Record<string, unknown> | undefined): string | null {
  if (!ref) return null;
  const v = ref.number ?? ref.workItemId ?? ref.alias ?? ref.dedupKey ?? ref.sysId;
  return v === undefined ? null : String(v);
}

/** The destination row fields the (ctx, row) form reads. */
export interface ConnectorTestRow {
  id: string;
  kind: string;
  config: Record<string, unknown> | null;
  credentials_sealed: string | null;
}

export function runConnectorTest(connector: Connector, destination: ConnectorTestDestination, send: Send, now: Date, opts?: { baseUrl?: string }): Promise<ConnectorTestResult>;
export function runConnectorTest(ctx: AppContext, row: ConnectorTestRow): Promise<ConnectorTestResult>;
export async function runConnectorTest(...args: unknown[]): Promise<ConnectorTestResult> {
  if (typeof (args[0] as Connector | undefined)?.deliver === 'function') {
    const [connector, destination, send, now, opts] = args as [Connector, ConnectorTestDestination, Send, Date, { baseUrl?: string } | undefined];
    return runTest(connector, destination, send, now, opts ?? {});
  }
  return runForRow(args[0] as AppContext, args[1] as ConnectorTestRow);
}

async function runForRow(ctx: AppContext, row: ConnectorTestRow): Promise<ConnectorTestResult> {
  const connector = getConnector(row.kind);
  if (!connector) return { ok: false, steps: [], manualCloseRequired: false, message: `Não há conector para o tipo de destino "${row.kind}".` };
  // Resolved at run time: the guarded client belongs to the pipeline (issue 3).
  const specifier = '../guarded-http.js';
  const { createGuardedSend } = (await import(specifier)) as { createGuardedSend(ctx: AppContext): Send & { close?: () => Promise<void> } };
  const send = createGuardedSend(ctx);
  try {
    const credentials = row.credentials_sealed ? ctx.sealer.openJson<Record<string, string>>(row.credentials_sealed) : {};
    return await runTest(connector, { id: row.id, config: row.config ?? {}, credentials }, send, ctx.clock.now(), { baseUrl: ctx.config.baseUrl });
  } finally {
    await send.close?.().catch(() => undefined);
  }
}

async function runTest(
  connector: Connector,
  destination: ConnectorTestDestination,
  send: Send,
  now: Date,
  opts: { baseUrl?: string },
): Promise<ConnectorTestResult> {
  const alert = sampleAlert(now, opts.baseUrl);
  const body = (event: DeliveryBody['event'], a: AlertSnapshot): DeliveryBody => ({
    id: `dlv_test_${randomBase62(16)}`,
    event,
    occurredAt: new Date(now).toISOString(),
    test: true,
    alert: a,
  });
  const opened = await step(connector, { body: body('alert.opened', alert), destination, ref: null, attempt: 1, previousOutcomeUnknown: false }, send);
  const steps = [toStep('open', opened)];
  if (opened.outcome !== 'succeeded') {
    return { ok: false, steps, manualCloseRequired: false, message: texts.testOpenFailed(opened.error) };
  }
  const ref = opened.ref ?? null;
  const resolved: AlertSnapshot = { ...alert, status: 'resolved', resolvedAt: new Date(now).toISOString() };
  const closed = await step(connector, { body: body('alert.recovered', resolved), destination, ref, attempt: 1, previousOutcomeUnknown: false }, send);
  steps.push(toStep('close', closed));
  if (closed.outcome !== 'succeeded') {
    return { ok: false, steps, manualCloseRequired: true, message: texts.testCloseFailed(closed.error, describeRef(opened.ref)) };
  }
  return { ok: true, steps, manualCloseRequired: false, message: texts.testOk };
}
