/**
 * Credentials never come back out (issue 35, item 4): every credential kind of every connector
 * goes to a vendor fake that answers an error echoing the whole request — request line, headers
 * (so `Authorization: Basic base64(user:password)`), body, and all of it again URL-encoded and as a
 * query string. The test action's answer, the delivery history, the destination view and every
 * log line are then scanned for each credential in every form it could take.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDispatcher } from '../../src/delivery/dispatcher.js';
import { clearAzureDevOpsStateCache } from '../../src/delivery/connectors/azure-devops.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert } from '../helpers/fixtures.js';
import { until } from '../delivery/support.js';
import type { FakeVendor } from '../fakes/fake-server.js';
import { PagerDutyFake } from '../fakes/pagerduty.js';
import { OpsgenieFake } from '../fakes/opsgenie.js';
import { JsmFake } from '../fakes/jsm.js';
import { ServiceNowFake } from '../fakes/servicenow.js';
import { AzureDevOpsFake } from '../fakes/azure-devops.js';

const ROUTING_KEY = 'REDACTKEY0123456789abcdefABCDEF0';
const PD_REST_KEY = 'pd-rest/key+with=odd&chars?1';
const GENIE_KEY = 'genie-key/with+odd=chars&2';
const JSM_KEY = 'jsm-key/0123+4567=89abcdef';
const SN_USER = 'vigia';
const SN_PASSWORD = 'sn pass/w0rd+=&?%é"3';
const PAT = 'ado-pat+with/odd=chars0123456789';

/** Every form a credential may take in an echoed request. */
function forms(value: string, basicUsers: string[] = []): string[] {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  return [
    value,
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    b64(value).replace(/=+$/, ''),
    ...basicUsers.map((u) => b64(`${u}:${value}`).replace(/=+$/, '')),
  ];
}

// Deliveries through the real dispatcher: generous on a loaded machine.
describe('credentials echoed by a vendor never reach an answer or a log line', { timeout: 120_000 }, () => {
  let t: TestApp;
  const pd = new PagerDutyFake(ROUTING_KEY);
  const og = new OpsgenieFake(GENIE_KEY);
  const jsm = new JsmFake(JSM_KEY);
  const sn = new ServiceNowFake(SN_USER, SN_PASSWORD);
  const ado = new AzureDevOpsFake('acme', PAT, 'Scrum');
  const fakes: FakeVendor[] = [pd, og, jsm, sn, ado];

  beforeAll(async () => {
    t = await createTestApp({ clock: new ManualClock('2026-06-15T12:00:00Z'), config: { destinationAllowlist: ['127.0.0.1'], deliveryTimeoutMs: 1500 } });
    await Promise.all(fakes.map((f) => f.start()));
  });
  afterEach(() => clearAzureDevOpsStateCache());
  afterAll(async () => {
    await Promise.all(fakes.map((f) => f.stop()));
    await t.close();
  });

  const cases = [
    { kind: 'pagerduty', fake: pd, config: () => ({ region: 'us', apiBaseUrl: pd.url }), credentials: { routingKey: ROUTING_KEY, restApiKey: PD_REST_KEY }, users: [] },
    { kind: 'opsgenie', fake: og, config: () => ({ region: 'us', apiBaseUrl: og.url }), credentials: { apiKey: GENIE_KEY }, users: [] },
    { kind: 'jsm', fake: jsm, config: () => ({ apiBaseUrl: jsm.url }), credentials: { apiKey: JSM_KEY }, users: [] },
    { kind: 'servicenow', fake: sn, config: () => ({ instanceUrl: sn.url }), credentials: { username: SN_USER, password: SN_PASSWORD }, users: [SN_USER] },
    { kind: 'azure-devops', fake: ado, config: () => ({ organizationUrl: ado.organizationUrl, project: 'Dados' }), credentials: { personalAccessToken: PAT }, users: [''] },
  ] as const;

  for (const c of cases) {
    it(`${c.kind}: the test action, the delivery error and the logs show no credential in any form`, async () => {
      const org = await createOrg(t);
      const created = await t.admin('POST', `/orgs/${org.id}/destinations`, { name: c.kind, kind: c.kind, config: c.config(), credentials: c.credentials });
      expect(created.statusCode, created.body).toBe(201);
      const destId: string = created.json().id;
      c.fake.failNext(50, { kind: 'echo', status: 400 });
      const seenBefore = c.fake.requests.length;

      const test = await t.admin('POST', `/orgs/${org.id}/destinations/${destId}/test`);
      expect(test.statusCode, test.body).toBe(200);
      expect(test.json().ok).toBe(false);
      expect(test.body).toContain('[redacted]');

      const alertId = await openAlert(t, org.id, { sourceId: `gw-redact-${c.kind}` });
      const worker = await startDispatcher(t.ctx);
      try {
        await until(async () => {
          const { rows } = await t.ctx.db.query<{ status: string }>('SELECT status FROM deliveries WHERE destination_id = $1 AND NOT test', [destId]);
          return rows.length > 0 && rows.every((r) => ['failed', 'abandoned', 'succeeded'].includes(r.status));
        }, 60_000, 'the delivery to end');
      } finally {
        await worker.stop();
      }
      const history = await t.admin('GET', `/orgs/${org.id}/destinations/${destId}/deliveries`);
      expect(history.statusCode).toBe(200);
      const deliveryIds: string[] = history.json().value.map((d: { id: string }) => d.id);
      expect(deliveryIds.length).toBeGreaterThan(0);
      const answers = [
        test.body,
        history.body,
        ...(await Promise.all(deliveryIds.map(async (id) => (await t.admin('GET', `/orgs/${org.id}/deliveries/${id}`)).body))),
        (await t.admin('GET', `/orgs/${org.id}/alerts/${alertId}/deliveries`)).body,
        (await t.admin('GET', `/orgs/${org.id}/destinations/${destId}`)).body,
      ];
      expect(history.body).toMatch(/answered 400/);

      // The fake really echoed the credentials (else the scan proves nothing).
      const sent = c.fake.requests.slice(seenBefore);
      expect(sent.length).toBeGreaterThan(0);
      const secrets = Object.entries(c.credentials).filter(([k]) => k !== 'username' && k !== 'restApiKey');
      for (const [, value] of secrets) expect(sent.some((r) => JSON.stringify(r.headers).includes(Buffer.from(`${c.users[0] ?? ''}:${value}`).toString('base64')) || r.body.includes(value) || JSON.stringify(r.headers).includes(value))).toBe(true);

      for (const [name, value] of Object.entries(c.credentials)) {
        if (name === 'username') continue;
        for (const form of forms(value, [...c.users])) {
          for (const a of answers) expect(a, `${name} as ${form}`).not.toContain(form);
          expect(t.ctx.logs.text, `${name} as ${form} in a log line`).not.toContain(form);
        }
      }
    });
  }
});
