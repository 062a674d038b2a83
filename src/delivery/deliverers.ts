/**
 * Destination kinds delivered by their own transport (deliverer-types.ts), by kind. The attempt,
 * the Test action and the input rules look here after the connectors; the dispatcher closes
 * their open connections when it stops.
 */
import type { AppContext } from '../context.js';
import type { DelivererKind } from './connectors/types.js';
import type { Deliverer } from './deliverer-types.js';
import { emailDeliverer } from './email/index.js';

const deliverers: Record<DelivererKind, Deliverer> = { email: emailDeliverer };

export function getDeliverer(kind: string): Deliverer | undefined {
  return Object.hasOwn(deliverers, kind) ? deliverers[kind as DelivererKind] : undefined;
}

export async function closeDeliverers(ctx: AppContext): Promise<void> {
  await Promise.all(Object.values(deliverers).map((d) => d.close(ctx)));
}
