/**
 * One attempt of one delivery: pick the format (generic webhook, a connector, or a deliverer with
 * its own transport such as e-mail), send through the guarded client (or that transport), and turn whatever happened into a ConnectorResult. Shared by the
 * dispatcher and the synchronous test send.
 */
import type { AppContext } from '../context.js';
import type { ConnectorResult, DeliveryBody, Send } from './connectors/types.js';
import { getConnector } from './connectors/index.js';
import { getDeliverer } from './deliverers.js';
import { deliverWebhook } from './webhook.js';
import { loadNotificationMessage } from './notify/index.js';
import type { SignatureScheme } from './signing.js';

/** What the pipeline knows about a delivery when it attempts it. */
export interface AttemptInput {
  id: string;
  orgId: string;
  event: string;
  body: string;
  kind: string;
  url: string | null;
  config: Record<string, unknown>;
  destinationId: string;
  credentialsSealed: string | null;
  signingSecretSealed: string | null;
  /** How a webhook destination signs (ignored by connectors). */
  signatureScheme: SignatureScheme;
  ref: Record<string, unknown> | null;
  /** 1-based attempt number within the current budget. */
  attempt: number;
  previousOutcomeUnknown: boolean;
  /** A grouped opening's other bodies (delivery/grouping.ts), sent in the same message. */
  groupBodies?: string[];
}

export interface AttemptOutcome {
  result: ConnectorResult;
  startedAt: Date;
  durationMs: number;
}

/**
 * Unsealed signing secrets by sealed text, per sealer: opening (AES-GCM) cost ~28 µs per attempt,
 * about 5 % of the dispatcher's CPU per delivery. A new or rotated secret is a new sealed text, so
 * an entry is never stale; bounded, then it starts afresh. The process holds the master key anyway.
 */
const openedSecrets = new WeakMap<object, Map<string, string>>();
const OPENED_SECRETS_KEPT = 256;

function openSigningSecret(ctx: AppContext, sealed: string): string {
  let memo = openedSecrets.get(ctx.sealer);
  if (!memo) {
    memo = new Map();
    openedSecrets.set(ctx.sealer, memo);
  }
  let secret = memo.get(sealed);
  if (secret === undefined) {
    secret = ctx.sealer.open(sealed);
    if (memo.size >= OPENED_SECRETS_KEPT) memo.clear();
    memo.set(sealed, secret);
  }
  return secret;
}

/** Stored error texts are bounded; connectors promise they are secret-free. */
function bound(text: string): string {
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

export async function performAttempt(ctx: AppContext, send: Send, d: AttemptInput): Promise<AttemptOutcome> {
  const startedAt = ctx.clock.now();
  const t0 = performance.now();
  let result: ConnectorResult;
  try {
    if (d.kind === 'webhook') {
      if (!d.url || !d.signingSecretSealed) result = { outcome: 'abandon', error: 'destination has no url or signing secret' };
      else {
        result = await deliverWebhook(
          {
            deliveryId: d.id,
            event: d.event,
            body: d.body,
            url: d.url,
            secret: openSigningSecret(ctx, d.signingSecretSealed),
            scheme: d.signatureScheme,
            now: ctx.clock.now(),
          },
          send,
        );
      }
    } else if (getDeliverer(d.kind)) {
      result = await getDeliverer(d.kind)!.deliver(ctx, {
        id: d.id,
        event: d.event,
        body: d.body,
        destinationId: d.destinationId,
        config: d.config,
        ref: d.ref,
        attempt: d.attempt,
        previousOutcomeUnknown: d.previousOutcomeUnknown,
        ...(d.groupBodies && d.groupBodies.length > 0 ? { groupBodies: d.groupBodies } : {}),
      });
    } else {
      const connector = getConnector(d.kind);
      if (!connector) result = { outcome: 'abandon', error: `no connector for kind ${d.kind}` };
      else {
        const body = JSON.parse(d.body) as DeliveryBody;
        const group = d.groupBodies && d.groupBodies.length > 0 ? [body, ...d.groupBodies.map((b) => JSON.parse(b) as DeliveryBody)] : undefined;
        const credentials = d.credentialsSealed ? ctx.sealer.openJson<Record<string, string>>(d.credentialsSealed) : {};
        const scope = { orgId: d.orgId, destinationId: d.destinationId, slackActions: d.kind === 'slack' && Boolean(credentials.appSigningSecret) };
        const message = connector.notifies ? await loadNotificationMessage(ctx, scope, group ?? [body]) : undefined;
        result = await connector.deliver(
          {
            body,
            ...(group ? { group } : {}),
            ...(message ? { message } : {}),
            destination: {
              id: d.destinationId,
              config: d.config,
              credentials,
            },
            ref: d.ref,
            attempt: d.attempt,
            previousOutcomeUnknown: d.previousOutcomeUnknown,
          },
          send,
        );
      }
    }
  } catch (err) {
    // An escaping throw (network error inside a connector, a bug) means "outcome unknown, retry".
    const message = (err as { name?: string }).name === 'DeliveryNetworkError' ? (err as Error).message : 'delivery failed';
    // Only the error's class is logged: a message could carry a request detail.
    if ((err as { name?: string }).name !== 'DeliveryNetworkError') ctx.log.warn({ deliveryId: d.id, errName: (err as Error).name }, 'attempt threw');
    result = { outcome: 'retry', error: message };
  }
  if ('error' in result) result = { ...result, error: bound(result.error) };
  return { result, startedAt, durationMs: Math.max(0, Math.round(performance.now() - t0)) };
}
