/**
 * What a chat message knows besides the delivery body, read per organization: the tenant an
 * incident came from (its connection's name), the root cause of a correlated incident, and the
 * organization's language and time zone; and the group key that follows the tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMessageContext, loadNotifySettings } from '../../src/delivery/notify/index.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';

describe('message context', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('reads tenant names and root causes of the organization only, and its settings', async () => {
    const org = await createOrg(t, { language: 'en', timeZone: 'Europe/Lisbon' });
    const other = await createOrg(t);
    const gateway = await openAlert(t, org.id, { sourceId: 'gw-ctx', title: 'Gateway gw-ctx offline' });
    const child = await openAlert(t, org.id, { sourceType: 'Dataset', sourceId: 'ds-ctx', title: 'Refresh failed' });
    const foreign = await openAlert(t, other.id, { sourceId: 'gw-other', title: 'Other org gateway' });
    const now = new Date('2026-06-15T12:00:00Z');
    await t.ctx.db.query(
      `INSERT INTO tenants (id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, endpoints, created_at, updated_at)
       VALUES ('ten_ctx', $1, 'Contoso BI', 't', 'c', 'secret', 'x', 'admin', '{}', $2, $2)`,
      [org.id, now],
    );
    await t.ctx.db.query(`UPDATE alerts SET tenant_ref = 'ten_ctx' WHERE id = ANY($1::text[])`, [[gateway, child]]);
    await t.ctx.db.query(`UPDATE alerts SET cause_alert_ids = ARRAY[$1] WHERE id = $2`, [gateway, child]);
    await t.ctx.db.query(`UPDATE alerts SET cause_alert_ids = ARRAY[$1] WHERE id = $2`, [gateway, foreign]);
    const c = await loadMessageContext(t.ctx.db, org.id, [gateway, child, foreign]);
    expect(Object.fromEntries(c.tenants!)).toEqual({ [gateway]: 'Contoso BI', [child]: 'Contoso BI' });
    expect(Object.fromEntries(c.rootCauses!)).toEqual({ [child]: 'Gateway gw-ctx offline' });
    expect(await loadNotifySettings(t.ctx.db, org.id)).toEqual({ language: 'en', timeZone: 'Europe/Lisbon' });
    expect(await loadNotifySettings(t.ctx.db, other.id)).toEqual({ language: 'pt-BR', timeZone: 'America/Sao_Paulo' });
  });
});
