/**
 * The preview of a chat or e-mail message (docs/notifications.md, "Preview in the console"): a
 * sample incident of the organization, in its language and time zone, rendered by the same
 * renderers the deliveries use — the Teams envelope with its Adaptive Card, the Slack
 * `{ text, blocks }`, the e-mail's subject, text and HTML — so what the console shows is the
 * bytes that would be sent. The sample's links have the real shape (an acknowledge link signed
 * for no destination, which the page refuses).
 */
import type { AppContext } from '../context.js';
import type { AlertEventName, DeliveryBody } from '../outbox/index.js';
import { requireOrg } from '../orgs/orgs.js';
import { buildNotificationMessage, renderSlack, renderTeams } from './notify/index.js';
import { renderEmail } from './email/render.js';
import { ackLinkUrl, loadAckKey, slackButtonValue } from './ack-links.js';

export const PREVIEW_KINDS = ['teams', 'slack', 'email'] as const;
export type PreviewKind = (typeof PREVIEW_KINDS)[number];

export interface PreviewInput {
  kind: PreviewKind;
  event?: AlertEventName;
  /** Slack: show the Acknowledge / Resolve buttons (the destination has its app's signing secret). */
  slackButtons?: boolean;
}

export interface PreviewResult {
  kind: PreviewKind;
  event: AlertEventName;
  language: string;
  timeZone: string;
  /** Teams and Slack: the JSON body exactly as posted (pretty-printed copies are the console's). */
  body?: string;
  contentType: string;
  email?: { subject: string; text: string; html: string };
}

const SAMPLE_ID = 'alr_preview';

function sampleBody(baseUrl: string, language: string, event: AlertEventName, now: Date): DeliveryBody {
  const en = language === 'en';
  const openedAt = new Date(now.getTime() - 4 * 60_000).toISOString();
  return {
    id: 'dlv_preview',
    event,
    occurredAt: now.toISOString(),
    alert: {
      id: SAMPLE_ID,
      title: en ? 'Refresh failed: Sales (daily)' : 'Falha na atualização: Vendas (diário)',
      message: en
        ? 'The scheduled refresh of the semantic model failed: the gateway Gateway-SP01 is offline. Next attempt at 06:00.'
        : 'A atualização agendada do modelo semântico falhou: o gateway Gateway-SP01 está offline. Próxima tentativa às 06:00.',
      sourceType: 'Dataset',
      sourceId: 'Vendas (diário)',
      workspaceName: en ? 'Finance' : 'Financeiro',
      capacityName: 'F64-Producao',
      severity: 'error',
      status: event === 'alert.recovered' ? 'resolved' : 'open',
      acknowledged: event === 'alert.acknowledged',
      openedAt,
      resolvedAt: event === 'alert.recovered' ? now.toISOString() : null,
      failureCount: 1,
      url: `${baseUrl.replace(/\/+$/, '')}/alerts/${SAMPLE_ID}`,
    },
  };
}

export async function renderPreview(ctx: Pick<AppContext, 'db' | 'sealer' | 'clock' | 'config'>, orgId: string, input: PreviewInput): Promise<PreviewResult> {
  const org = await requireOrg(ctx.db, orgId);
  const now = ctx.clock.now();
  const event = input.event ?? 'alert.opened';
  const settings = { language: org.language, timeZone: org.timeZone };
  const body = sampleBody(ctx.config.baseUrl, org.language, event, now);
  const key = await loadAckKey(ctx);
  const open = event === 'alert.opened' || event === 'alert.escalated';
  const ackUrl = open ? ackLinkUrl(ctx.config.baseUrl, key, { orgId, alertId: SAMPLE_ID, destinationId: 'preview', now }) : null;
  const base = { kind: input.kind, event, language: org.language, timeZone: org.timeZone };
  if (input.kind === 'email') {
    const unsubscribe = `${ctx.config.baseUrl.replace(/\/+$/, '')}/api/inbound/v1/email/unsubscribe?t=preview`;
    const model = buildNotificationMessage([body], settings, ackUrl ? { ackUrls: new Map([[SAMPLE_ID, ackUrl]]) } : {});
    return { ...base, contentType: 'multipart/alternative', email: renderEmail(model, { unsubscribeUrl: unsubscribe }) };
  }
  const slackActions =
    input.kind === 'slack' && input.slackButtons && open
      ? new Map([[SAMPLE_ID, { ack: slackButtonValue(key, 'preview', SAMPLE_ID, 'ack'), resolve: slackButtonValue(key, 'preview', SAMPLE_ID, 'resolve') }]])
      : undefined;
  const message = buildNotificationMessage([body], settings, {
    ...(ackUrl ? { ackUrls: new Map([[SAMPLE_ID, ackUrl]]) } : {}),
    ...(slackActions ? { slackActions } : {}),
  });
  const rendered = input.kind === 'teams' ? renderTeams(message) : renderSlack(message);
  return { ...base, contentType: 'application/json', body: rendered };
}
