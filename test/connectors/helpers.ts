/**
 * Test plumbing for driving connectors directly: a real `Send` over undici to the fakes (HTTPS,
 * test CA, per-call timeout, throws on timeout/network failure like the pipeline's guarded send),
 * sample delivery bodies and a tiny "pipeline" that replays attempts the way the dispatcher does.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { AlertSnapshot } from '../../src/alerts/snapshot.js';
import type { AlertEventName } from '../../src/alerts/events.js';
import type { Connector, ConnectorDelivery, ConnectorResult, DeliveryBody, Send } from '../../src/delivery/connectors/types.js';
import { certFiles } from '../fakes/fake-server.js';

export class SendFailed extends Error {}

export function undiciSend(timeoutMs = 2000): Send & { agent: Agent } {
  const agent = new Agent({ connect: { ca: readFileSync(certFiles().caCert) }, connections: 8 });
  const send = (async (req) => {
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = await res.body.text();
      return { statusCode: res.statusCode, headers: res.headers as Record<string, string | string[] | undefined>, body: body.slice(0, 65536) };
    } catch {
      // Generic on purpose, like the pipeline's guarded client (failure texts reveal nothing of the network).
      throw new SendFailed('no response from destination');
    }
  }) as Send & { agent: Agent };
  send.agent = agent;
  return send;
}

let seq = 0;
export function sampleAlert(overrides: Partial<AlertSnapshot> = {}): AlertSnapshot {
  seq += 1;
  const id = `alr_${Date.now().toString(36)}${seq}`;
  return {
    id,
    title: 'Gateway gw-prod-01 offline',
    message: 'O gateway não responde há 5 minutos.',
    sourceType: 'Gateway',
    sourceId: 'gw-prod-01',
    workspaceName: 'Finanças',
    capacityName: 'cap-f64',
    severity: 'error',
    status: 'open',
    acknowledged: false,
    openedAt: '2026-06-15T12:00:00.000Z',
    resolvedAt: null,
    failureCount: 1,
    url: `https://vigia.example.test/alerts/${id}`,
    ...overrides,
  };
}

export function body(event: AlertEventName, alert: AlertSnapshot, extra: Partial<DeliveryBody> = {}): DeliveryBody {
  const a =
    event === 'alert.recovered'
      ? { ...alert, status: 'resolved' as const, resolvedAt: '2026-06-15T13:00:00.000Z' }
      : event === 'alert.acknowledged'
        ? { ...alert, acknowledged: true }
        : alert;
  return { id: `dlv_${event}_${a.id}`, event, occurredAt: '2026-06-15T12:30:00.000Z', alert: a, ...extra };
}

export interface Destination {
  id: string;
  config: Record<string, unknown>;
  credentials: Record<string, string>;
}

/**
 * Delivers like the pipeline does, without the database: up to `maxAttempts`, a throw from send
 * counts as "retry, outcome unknown" and sets previousOutcomeUnknown on the next attempt.
 */
export async function deliverWithRetries(
  connector: Connector,
  destination: Destination,
  b: DeliveryBody,
  ref: Record<string, unknown> | null,
  send: Send,
  maxAttempts = 5,
): Promise<{ result: ConnectorResult; attempts: ConnectorResult[] }> {
  const attempts: ConnectorResult[] = [];
  let unknown = false;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const d: ConnectorDelivery = { body: b, destination, ref, attempt, previousOutcomeUnknown: unknown };
    let r: ConnectorResult;
    try {
      r = await connector.deliver(d, send);
    } catch {
      r = { outcome: 'retry', error: 'no response from destination' };
      unknown = true;
    }
    attempts.push(r);
    if (r.outcome !== 'retry') return { result: r, attempts };
  }
  return { result: attempts[attempts.length - 1]!, attempts };
}

/** Runs opened → acknowledged → escalated → recovered, carrying the opening's reference. */
export async function lifecycle(connector: Connector, destination: Destination, alert: AlertSnapshot, send: Send) {
  const results: ConnectorResult[] = [];
  let ref: Record<string, unknown> | null = null;
  for (const event of ['alert.opened', 'alert.acknowledged', 'alert.escalated', 'alert.recovered'] as const) {
    const { result } = await deliverWithRetries(connector, destination, body(event, alert), ref, send);
    results.push(result);
    if (event === 'alert.opened' && result.outcome === 'succeeded') ref = result.ref ?? null;
  }
  return { results, ref };
}
