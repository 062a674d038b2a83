/**
 * The Test action of a destination (`POST …/destinations/{id}/test`). A webhook gets
 * one signed POST of a sample event with `"test": true`, sent now and recorded in its history;
 * connector kinds use the connector's own test action (open a sample incident, then close it).
 */
import type { AppContext } from '../context.js';
import type { AlertSnapshot } from '../outbox/index.js';
import { newId } from '../ids.js';
import { performAttempt } from './attempt.js';
import { buildDeliveryBody, recordTestDelivery, type FinalStatus } from '../outbox/index.js';
import type { DestinationRow } from './destinations.js';
import { createGuardedSend } from './guarded-http.js';
import { getConnector } from './connectors/index.js';
import { getDeliverer } from './deliverers.js';
import { runConnectorTest, testAlertSnapshot } from './connectors/test-action.js';
import { isChatKind } from './connectors/chat-urls.js';

export interface TestStep {
  action: 'send' | 'open' | 'close';
  ok: boolean;
  statusCode?: number;
  error?: string;
}

export interface TestActionResult {
  ok: boolean;
  steps: TestStep[];
  manualCloseRequired: boolean;
  message: string;
}

export function sampleAlert(ctx: AppContext, alertId: string, now: Date): AlertSnapshot {
  return testAlertSnapshot(
    {
      id: alertId,
      title: 'Alerta de teste do Vigia',
      message: 'Este é um evento de teste enviado pelo Vigia para verificar o destino.',
      sourceId: 'vigia-test',
      url: `${ctx.config.baseUrl}/alerts/${encodeURIComponent(alertId)}`,
    },
    now,
  );
}

/**
 * One test message sent now and recorded in the history: a webhook's signed sample event, or a
 * chat destination's sample message (teams, slack: its connector renders the test body).
 */
async function sendOnceTest(ctx: AppContext, d: DestinationRow): Promise<TestActionResult> {
  const chat = isChatKind(d.kind);
  const now = ctx.clock.now();
  const id = newId('dlv', now);
  const alertId = newId('tst', now);
  const body = buildDeliveryBody({ deliveryId: id, event: 'alert.opened', occurredAt: now, alert: sampleAlert(ctx, alertId, now), test: true });
  const send = createGuardedSend(ctx);
  let outcome: Awaited<ReturnType<typeof performAttempt>>;
  try {
    outcome = await performAttempt(ctx, send, {
      id,
      orgId: d.org_id,
      event: 'alert.opened',
      body,
      kind: chat ? d.kind : 'webhook',
      url: d.url,
      config: chat ? d.config : {},
      destinationId: d.id,
      credentialsSealed: chat ? d.credentials_sealed : null,
      signingSecretSealed: d.signing_secret_sealed,
      signatureScheme: d.signature_scheme,
      ref: null,
      attempt: 1,
      previousOutcomeUnknown: false,
    });
  } finally {
    await send.close().catch(() => undefined);
  }
  const r = outcome.result;
  const ok = r.outcome === 'succeeded';
  const status: FinalStatus = ok ? 'succeeded' : r.outcome === 'abandon' ? 'abandoned' : 'failed';
  const error = 'error' in r ? r.error : null;
  const doneAt = ctx.clock.now();
  await recordTestDelivery(ctx.db, {
    id,
    orgId: d.org_id,
    destinationId: d.id,
    alertId,
    status,
    body,
    statusCode: r.statusCode ?? null,
    error,
    createdAt: now,
    completedAt: doneAt,
    startedAt: outcome.startedAt,
    durationMs: outcome.durationMs,
  });
  const step: TestStep = { action: 'send', ok, ...(r.statusCode !== undefined ? { statusCode: r.statusCode } : {}), ...(error ? { error } : {}) };
  return {
    ok,
    steps: [step],
    manualCloseRequired: false,
    message: ok
      ? `Entrega de teste recebida pelo destino (HTTP ${r.statusCode}).${d.kind === 'teams' ? ' O Teams confirma só que o fluxo começou: veja no histórico de execuções do fluxo se o cartão foi publicado no canal.' : ''}`
      : chat
        ? `A mensagem de teste falhou (${error}). Verifique a URL do webhook.`
        : `A entrega de teste falhou (${error}). Verifique a URL e se o receptor valida a assinatura com o segredo correto.`,
  };
}

/** Connector kinds: the connector's own open-then-close test (connectors/test-action.ts). */
async function connectorTest(ctx: AppContext, d: DestinationRow): Promise<TestActionResult> {
  const connector = getConnector(d.kind);
  if (!connector) {
    return { ok: false, steps: [], manualCloseRequired: false, message: 'O teste ainda não está disponível para este tipo de destino.' };
  }
  const send = createGuardedSend(ctx);
  try {
    return await runConnectorTest(
      connector,
      { id: d.id, config: d.config, credentials: d.credentials_sealed ? ctx.sealer.openJson<Record<string, string>>(d.credentials_sealed) : {} },
      send,
      ctx.clock.now(),
      { baseUrl: ctx.config.baseUrl },
    );
  } finally {
    await send.close().catch(() => undefined);
  }
}

export async function runTestAction(ctx: AppContext, d: DestinationRow): Promise<TestActionResult> {
  if (d.kind === 'webhook' || isChatKind(d.kind)) return sendOnceTest(ctx, d);
  const deliverer = getDeliverer(d.kind);
  if (deliverer) return deliverer.test(ctx, { id: d.id, orgId: d.org_id, config: d.config });
  return connectorTest(ctx, d);
}
