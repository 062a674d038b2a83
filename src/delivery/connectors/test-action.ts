/**
 * The Test action of a connector destination (docs/connectors.md, "Test action"):
 *
 *   runConnectorTest(connector, destination, send, now, { baseUrl }?) → Promise<ConnectorTestResult>
 *
 *   - connector:   the destination's Connector (getConnector(kind)).
 *   - destination: { id, config, credentials } with credentials opened, as in ConnectorDelivery.
 *   - send:        the pipeline's guarded Send (it may throw on timeout/network failure).
 *   - now:         the clock's current time (sample timestamps and ids).
 *   - baseUrl:     VIGIA_BASE_URL, for the sample alert's link.
 *
 * It opens a sample incident (a body with `test: true`, event alert.opened) and then closes it
 * (alert.recovered, with the reference the opening returned). The result is the CONTRACT shape
 * `{ ok, steps: [{ action: 'open'|'close', ok, statusCode?, error? }], manualCloseRequired, message }`
 * with `message` in Portuguese. When the open succeeded and the close did not, the sample
 * incident is still open at the vendor: manualCloseRequired is true and the message asks the
 * user to close it by hand. Nothing is stored; this is a synchronous check for the console.
 */
import { randomBase62 } from '../../ids.js';
import type { AlertSnapshot } from '../../outbox/index.js';
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
/**
 * The alert a test send carries (the connectors' "Testar" action and a webhook's test event): an
 * open info incident of a made-up gateway; `who` names it, in the order the snapshot is written.
 */
export function testAlertSnapshot(who: Pick<AlertSnapshot, 'id' | 'title' | 'message' | 'sourceId' | 'url'>, now: Date): AlertSnapshot {
  return {
    id: who.id,
    title: who.title,
    message: who.message,
    sourceType: 'Gateway',
    sourceId: who.sourceId,
    workspaceName: null,
    capacityName: null,
    severity: 'info',
    status: 'open',
    acknowledged: false,
    openedAt: now.toISOString(),
    resolvedAt: null,
    failureCount: 1,
    url: who.url,
  };
}

export function sampleAlert(now: Date, baseUrl = 'https://vigia.invalid'): AlertSnapshot {
  const id = `test_${now.getTime().toString(36)}${randomBase62(8)}`;
  return testAlertSnapshot(
    {
      id,
      title: 'Incidente de teste do Vigia',
      message: 'Este incidente foi criado pela ação "Testar" do Vigia para verificar a integração. Pode ser ignorado.',
      sourceId: 'vigia-teste',
      url: `${baseUrl.replace(/\/+$/, '')}/alerts/${id}`,
    },
    now,
  );
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

export async function runConnectorTest(
  connector: Connector,
  destination: ConnectorTestDestination,
  send: Send,
  now: Date,
  opts: { baseUrl?: string } = {},
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
