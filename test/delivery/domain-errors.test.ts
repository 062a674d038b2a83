/**
 * Domain functions speak in domain errors, not HTTP: the same failures the admin API answers as
 * 400/404/409 are DomainErrors of kind invalid / not_found / conflict / limit when the functions
 * are called directly (as the demo and the CLI do).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDestination, getDestination } from '../../src/delivery/destination-service.js';
import { MAX_DESTINATIONS_PER_ORG } from '../../src/delivery/destinations.js';
import { getDelivery, redeliverDelivery } from '../../src/delivery/history.js';
import { DomainError } from '../../src/errors.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { emit, insertOrg } from './support.js';

describe('domain errors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { destinationAllowlist: ['127.0.0.1'] } });
  });
  afterAll(() => t.close());

  const kindOf = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (err: unknown) => (err instanceof DomainError ? err.kind : `not a DomainError: ${String(err)}`),
    );
  const hook = (n: number) => ({ name: `Hook ${n}`, kind: 'webhook' as const, url: `https://127.0.0.1:1/h${n}` });

  it('not_found, invalid, conflict and limit, each with the message the API shows', async () => {
    const orgId = await insertOrg(t.ctx);
    expect(await kindOf(getDestination(t.ctx, orgId, 'dst_missing'))).toBe('not_found');
    expect(await kindOf(getDelivery(t.ctx.db, orgId, 'dlv_missing'))).toBe('not_found');
    expect(await kindOf(createDestination(t.ctx, orgId, { name: 'x', kind: 'webhook' }))).toBe('invalid');

    const dest = await createDestination(t.ctx, orgId, hook(0));
    await emit(t.ctx, orgId); // pending: nobody sends it here
    const { rows } = await t.ctx.db.query<{ id: string }>('SELECT id FROM deliveries WHERE destination_id = $1', [dest.id]);
    const err = await redeliverDelivery(t.ctx.db, orgId, rows[0]!.id, new Date()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'conflict', message: 'the delivery is still in progress' });

    for (let i = 1; i < MAX_DESTINATIONS_PER_ORG; i++) await createDestination(t.ctx, orgId, hook(i));
    expect(await kindOf(createDestination(t.ctx, orgId, hook(99)))).toBe('limit');
  });
});
