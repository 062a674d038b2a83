/**
 * Creates the PagerDuty V3 webhook subscription that posts to a destination's inbound address,
 * with the destination's REST API key (`credentials.restApiKey`), and stores the signing secret
 * PagerDuty returns — it is shown only in the create answer (REST `POST /webhook_subscriptions`).
 */
import type { AppContext } from '../context.js';
import { invalidInput } from '../errors.js';
import { parseJson, redact } from '../delivery/connectors/shared.js';
import { loadDestination } from '../delivery/destination-service.js';
import { createGuardedSend } from '../delivery/guarded-http.js';
import { storeToolSecret } from './endpoints.js';
import { pagerDutyRestBaseUrl } from './pagerduty-alerts.js';
import { inboundUrl } from '../delivery/inbound-views.js';

/** The incident events Vigia acts on; PagerDuty sends nothing else. */
export const PAGERDUTY_EVENTS = ['incident.acknowledged', 'incident.unacknowledged', 'incident.resolved'] as const;

export async function createPagerDutySubscription(
  ctx: AppContext,
  orgId: string,
  destinationId: string,
  input: { serviceId?: string },
): Promise<{ subscriptionId: string; url: string }> {
  const d = await loadDestination(ctx.db, orgId, destinationId);
  if (d.kind !== 'pagerduty') throw invalidInput('only a pagerduty destination has a PagerDuty webhook subscription');
  const credentials = d.credentials_sealed ? ctx.sealer.openJson<Record<string, string>>(d.credentials_sealed) : {};
  const apiKey = credentials.restApiKey;
  if (!apiKey) throw invalidInput('the destination needs credentials.restApiKey (a PagerDuty REST API key) to create the subscription');
  const url = inboundUrl(ctx.config.baseUrl, destinationId);
  const send = createGuardedSend(ctx);
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send({
      method: 'POST',
      url: `${pagerDutyRestBaseUrl(d.config)}/webhook_subscriptions`,
      headers: { authorization: `Token token=${apiKey}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
      body: JSON.stringify({
        webhook_subscription: {
          type: 'webhook_subscription',
          description: `Vigia: ${d.name}`.slice(0, 200),
          delivery_method: { type: 'http_delivery_method', url },
          events: PAGERDUTY_EVENTS,
          filter: input.serviceId ? { type: 'service_reference', id: input.serviceId } : { type: 'account_reference' },
        },
      }),
    });
  } catch {
    throw invalidInput('PagerDuty could not be reached to create the subscription; try again');
  } finally {
    await send.close().catch(() => undefined);
  }
  const sub = (parseJson(res.body) as { webhook_subscription?: { id?: unknown; delivery_method?: { secret?: unknown } } } | undefined)?.webhook_subscription;
  const secret = sub?.delivery_method?.secret;
  if (res.statusCode < 200 || res.statusCode > 299 || typeof sub?.id !== 'string' || typeof secret !== 'string') {
    throw invalidInput(redact(`PagerDuty did not create the subscription (HTTP ${res.statusCode}): ${res.body.slice(0, 300)}`, credentials));
  }
  await storeToolSecret(ctx, orgId, destinationId, secret);
  return { subscriptionId: sub.id, url };
}
