/**
 * The Test action of an e-mail destination: a sample message to every recipient, sent now through
 * a connection of its own, and recorded in the destination's history like a webhook's test.
 */
import type { AppContext } from '../../context.js';
import { newId } from '../../ids.js';
import { buildDeliveryBody, recordTestDelivery, type DeliveryBody } from '../../outbox/index.js';
import { testAlertSnapshot } from '../connectors/test-action.js';
import type { DelivererTestResult } from '../deliverer-types.js';
import { loadNotificationMessage } from '../notify/index.js';
import { NO_RELAY, sendToRecipients, verdictOf } from './deliver.js';
import { messageIdFor } from './message.js';
import { oneShotMailer } from './mailer.js';
import { normalizeAddress, readEmailConfig } from './rules.js';
import { orgMailSettings } from './store.js';

const MESSAGES = {
  ok: (n: number) => `Mensagem de teste aceita pelo servidor SMTP para ${n} destinatário(s).`,
  failed: (error: string) => `O envio de teste falhou (${error}). Verifique VIGIA_SMTP_URL, VIGIA_SMTP_FROM e os destinatários.`,
};

export async function testEmailDestination(ctx: AppContext, d: { id: string; orgId: string; config: Record<string, unknown> }): Promise<DelivererTestResult> {
  const now = ctx.clock.now();
  const id = newId('dlv', now);
  const alertId = newId('tst', now);
  const alert = testAlertSnapshot(
    {
      id: alertId,
      title: 'Alerta de teste do Vigia',
      message: 'Este é um e-mail de teste enviado pelo Vigia para verificar o destino.',
      sourceId: 'vigia-test',
      url: `${ctx.config.baseUrl}/alerts/${encodeURIComponent(alertId)}`,
    },
    now,
  );
  const body = buildDeliveryBody({ deliveryId: id, event: 'alert.opened', occurredAt: now, alert, test: true });
  const t0 = performance.now();
  const settings = await orgMailSettings(ctx.db, d.id);
  let result: ReturnType<typeof verdictOf>;
  if (!ctx.config.smtp || !settings) result = { outcome: 'abandon', error: NO_RELAY };
  else {
    const mailer = oneShotMailer(ctx.config.smtp, ctx.config.deliveryTimeoutMs);
    try {
      const recipients = readEmailConfig(d.config).recipients.map(normalizeAddress);
      const model = await loadNotificationMessage(ctx, { orgId: settings.orgId, destinationId: null, settings }, [JSON.parse(body) as DeliveryBody]);
      const tally = await sendToRecipients({ ctx, mailer, progress: null, destinationId: d.id, model, settings, recipients, messageId: messageIdFor(id, ctx.config.smtp), inReplyTo: null });
      result = verdictOf(tally, 0, null);
    } finally {
      mailer.close();
    }
  }
  const ok = result.outcome === 'succeeded';
  const error = 'error' in result ? result.error : null;
  await recordTestDelivery(ctx.db, {
    id,
    orgId: d.orgId,
    destinationId: d.id,
    alertId,
    status: ok ? 'succeeded' : result.outcome === 'abandon' ? 'abandoned' : 'failed',
    body,
    statusCode: null,
    error,
    createdAt: now,
    completedAt: ctx.clock.now(),
    startedAt: now,
    durationMs: Math.max(0, Math.round(performance.now() - t0)),
  });
  const recipients = readEmailConfig(d.config).recipients.length;
  return { ok, steps: [{ action: 'send', ok, ...(error ? { error } : {}) }], manualCloseRequired: false, message: ok ? MESSAGES.ok(recipients) : MESSAGES.failed(error ?? '') };
}
