/**
 * The generic webhook "connector": one signed POST of the stored body; any 2xx confirms it (docs/delivery.md).
 */
import type { ConnectorResult, Send } from './connectors/types.js';
import { DeliveryNetworkError } from './guarded-http.js';
import { classifyStatus } from './retry-policy.js';
import { webhookHeaders, type SignatureScheme } from './signing.js';

export async function deliverWebhook(
  input: { deliveryId: string; event: string; body: string; url: string; secret: string; scheme: SignatureScheme; now: Date },
  send: Send,
): Promise<ConnectorResult> {
  const headers = webhookHeaders({
    deliveryId: input.deliveryId,
    event: input.event,
    body: input.body,
    secret: input.secret,
    scheme: input.scheme,
    now: input.now,
  });
  try {
    const res = await send({ method: 'POST', url: input.url, headers, body: input.body });
    const c = classifyStatus(res.statusCode);
    if (c === 'succeeded') return { outcome: 'succeeded', statusCode: res.statusCode };
    const error = res.statusCode >= 300 && res.statusCode < 400 ? `redirect ${res.statusCode} not followed` : `HTTP ${res.statusCode}`;
    return c === 'retry' ? { outcome: 'retry', statusCode: res.statusCode, error } : { outcome: 'abandon', statusCode: res.statusCode, error };
  } catch (err) {
    if (err instanceof DeliveryNetworkError) return { outcome: 'retry', error: err.message };
    throw err;
  }
}
