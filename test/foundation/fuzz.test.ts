/** Random JSON bodies on every owned admin write endpoint: always the envelope, never a 500. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert, signal } from '../helpers/fixtures.js';

describe('admin API fuzz', () => {
  let t: TestApp;
  let orgId: string;
  let alertId: string;
  beforeAll(async () => {
    t = await createTestApp();
    orgId = (await createOrg(t)).id;
    alertId = await openAlert(t, orgId);
  });
  afterAll(() => t.close());

  // Bodies near the valid shape (so validation goes deep) mixed with arbitrary JSON.
  const nearSignal = fc.record(
    {
      sourceType: fc.oneof(fc.string(), fc.constant('Gateway')),
      sourceId: fc.string(),
      sourceName: fc.string(),
      kind: fc.constantFrom('failure', 'recovery', 'other'),
      notificationKind: fc.string(),
      severity: fc.constantFrom('error', 'info', 'x'),
      title: fc.string(),
      message: fc.string({ unit: 'binary' }),
      occurredAt: fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
      causes: fc.array(fc.record({ sourceType: fc.string(), sourceId: fc.string() }), { maxLength: 3 }),
      workspaceName: fc.oneof(fc.constant(null), fc.string()),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(fc.jsonValue(), nearSignal, fc.array(nearSignal, { maxLength: 4 }));

  const ROUTES: [string, string][] = [
    ['POST', '/orgs'],
    ['PATCH', '/orgs/ORG'],
    ['POST', '/orgs/ORG/api-keys'],
    ['PUT', '/orgs/ORG/capacities'],
    ['PUT', '/orgs/ORG/workspaces'],
    ['POST', '/orgs/ORG/costs'],
    ['POST', '/orgs/ORG/signals'],
    ['POST', '/orgs/ORG/silences'],
    ['POST', '/orgs/ORG/alerts/ALERT/acknowledge'],
  ];

  it.each(ROUTES)('%s %s never answers 500', async (method, path) => {
    const url = path.replace('ORG', orgId).replace('ALERT', alertId);
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const res = await t.admin(method as 'POST', url, JSON.stringify(payload), { 'content-type': 'application/json' });
        expect([200, 201, 400, 404, 409]).toContain(res.statusCode);
        if (res.statusCode >= 400) expect(Object.keys(res.json().error).sort()).toEqual(['code', 'message']);
      }),
      { numRuns: 60 },
    );
    // still healthy afterwards
    expect((await t.admin('POST', `/orgs/${orgId}/signals`, signal({ sourceId: 'after-fuzz' }))).statusCode).toBe(200);
  }, 120_000);
});
