import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { azureDevOps, clearAzureDevOpsStateCache } from '../../src/delivery/connectors/azure-devops.js';
import { AzureDevOpsFake, TASK_STATES, type Process } from '../fakes/azure-devops.js';
import { body, deliverWithRetries, lifecycle, sampleAlert, undiciSend, type Destination } from './helpers.js';

const PAT = 'ado-pat-52charsxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';
let fake: AzureDevOpsFake;
const send = undiciSend(500);
let dest: Destination;

beforeAll(async () => {
  fake = await new AzureDevOpsFake('acme', PAT).start();
  dest = { id: 'dst_ado', config: { organizationUrl: fake.organizationUrl, project: 'Plataforma BI' }, credentials: { personalAccessToken: PAT } };
});
beforeEach(() => {
  fake.process = 'Agile';
  fake.refuseCompletion = false;
  clearAzureDevOpsStateCache();
});
afterAll(async () => {
  await fake.stop();
  await send.agent.close();
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
});

describe('Azure DevOps connector', () => {
  for (const process of ['Basic', 'Agile', 'Scrum', 'CMMI'] as Process[]) {
    it(`runs a full incident lifecycle and completes the Task (${process} process)`, async () => {
      fake.process = process;
      const alert = sampleAlert();
      const { results, ref } = await lifecycle(azureDevOps, dest, alert, send);
      expect(results.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
      const [w, ...more] = fake.byTag(`vigia-alert-${alert.id}`);
      expect(more).toHaveLength(0);
      expect(ref).toEqual({ workItemId: w!.id });
      expect(w!.type).toBe('Task');
      expect(w!.project).toBe('Plataforma BI');
      expect(w!.tags).toEqual(['Vigia', `vigia-alert-${alert.id}`]);
      expect(w!.comments).toHaveLength(3);
      expect(w!.comments[1]).toMatch(/ESCALADO/);
      const completed = TASK_STATES[process].find((s) => s.category === 'Completed')!.name;
      expect(w!.fields['System.State']).toBe(completed);
      const create = fake.requests.find((r) => r.method === 'POST' && r.path.endsWith('/workitems/$Task') && (r.json as any[]).some((p) => String(p.value).includes(alert.id)))!;
      expect(create.headers['content-type']).toBe('application/json-patch+json');
      expect(create.query.get('api-version')).toBe('7.1');
      expect(create.headers.authorization).toBe(`Basic ${Buffer.from(`:${PAT}`).toString('base64')}`);
    });
  }

  it('discovers the Completed state once per project (cached)', async () => {
    const before = fake.requests.filter((r) => r.path.endsWith('/workitemtypes/Task/states')).length;
    await lifecycle(azureDevOps, dest, sampleAlert(), send);
    await lifecycle(azureDevOps, dest, sampleAlert(), send);
    expect(fake.requests.filter((r) => r.path.endsWith('/workitemtypes/Task/states')).length - before).toBe(1);
  });

  it('when the process refuses the completion (400 TF401320) only the comment stays and the delivery succeeds', async () => {
    fake.refuseCompletion = true;
    const alert = sampleAlert();
    const { results } = await lifecycle(azureDevOps, dest, alert, send);
    expect(results.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(results[3]).toMatchObject({ statusCode: 400 });
    const w = fake.byTag(`vigia-alert-${alert.id}`)[0]!;
    expect(w.fields['System.State']).toBe('New');
    expect(w.comments).toHaveLength(3);
    expect(w.comments[2]).toMatch(/resolvido/);
    const patch = fake.requests.filter((r) => r.method === 'PATCH').at(-1)!;
    expect(patch.status).toBe(400);
  });

  it('a retried completion (state move failed with 503) leaves exactly one closing comment', async () => {
    const alert = sampleAlert();
    const opened = await deliverWithRetries(azureDevOps, dest, body('alert.opened', alert), null, send);
    const ref = opened.result.outcome === 'succeeded' ? opened.result.ref! : null;
    fake.failNext(1, { kind: 'reply', reply: { status: 503, body: { message: 'unavailable' } } }, (r) => r.method === 'PATCH');
    const { attempts } = await deliverWithRetries(azureDevOps, dest, body('alert.recovered', alert), ref, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'succeeded']);
    const w = fake.byTag(`vigia-alert-${alert.id}`)[0]!;
    expect(w.fields['System.State']).toBe('Closed');
    expect(w.comments).toHaveLength(1);
  });

  it('a timed-out create that did happen is found by its tag (WIQL) and reused: exactly one work item', async () => {
    const alert = sampleAlert();
    fake.failNext(1, { kind: 'delay', ms: 3000, afterHandling: true }, (r) => r.path.endsWith('/workitems/$Task'));
    const { result, attempts } = await deliverWithRetries(azureDevOps, dest, body('alert.opened', alert), null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'succeeded']);
    const items = fake.byTag(`vigia-alert-${alert.id}`);
    expect(items).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'succeeded', ref: { workItemId: items[0]!.id } });
    const wiql = fake.requests.at(-1)!;
    expect(wiql.path).toBe('/acme/Plataforma%20BI/_apis/wit/wiql');
    expect((wiql.json as any).query).toContain(`[System.Tags] CONTAINS 'vigia-alert-${alert.id}'`);
  });

  it('a 203 sign-in page (bad PAT) abandons with a secret-free reason', async () => {
    const wrong = 'wrong-pat-0000000000000000000000000000000000000000';
    const { result, attempts } = await deliverWithRetries(azureDevOps, { ...dest, credentials: { personalAccessToken: wrong } }, body('alert.opened', sampleAlert()), null, send);
    expect(attempts).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'abandon', statusCode: 203 });
    expect(result.outcome === 'abandon' && result.error).toMatch(/personal access token/);
    expect(JSON.stringify(result)).not.toContain(wrong);
  });

  it('401 and 403 abandon with secret-free reasons', async () => {
    fake.badPatStatus = 401;
    try {
      const wrong = 'wrong-pat-1111111111111111111111111111111111111111';
      const r1 = await deliverWithRetries(azureDevOps, { ...dest, credentials: { personalAccessToken: wrong } }, body('alert.opened', sampleAlert()), null, send);
      expect(r1.result).toMatchObject({ outcome: 'abandon', statusCode: 401 });
      expect(JSON.stringify(r1.result)).not.toContain(wrong);
    } finally {
      fake.badPatStatus = 203;
    }
    fake.failNext(1, { kind: 'reply', reply: { status: 403, body: { message: `TF400813: ${PAT} is not authorized` } } });
    const r2 = await deliverWithRetries(azureDevOps, dest, body('alert.opened', sampleAlert()), null, send);
    expect(r2.result).toMatchObject({ outcome: 'abandon', statusCode: 403 });
    expect(JSON.stringify(r2.result)).not.toContain(PAT);
  });

  it('retries 429 (Retry-After) and 503 on a comment, then succeeds', async () => {
    const alert = sampleAlert();
    const opened = await deliverWithRetries(azureDevOps, dest, body('alert.opened', alert), null, send);
    fake.failNext(1, { kind: 'reply', reply: { status: 429, headers: { 'retry-after': '30' }, body: { message: 'TF400733: rate limited' } } });
    fake.failNext(1, { kind: 'reply', reply: { status: 503, body: { message: 'unavailable' } } });
    const { attempts } = await deliverWithRetries(azureDevOps, dest, body('alert.acknowledged', alert), opened.result.outcome === 'succeeded' ? opened.result.ref! : null, send);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'succeeded']);
    expect(attempts[0]).toMatchObject({ retryAfterMs: 30000 });
    expect(fake.byTag(`vigia-alert-${alert.id}`)[0]!.comments).toHaveLength(1);
  });

  it('a later event without a stored reference finds the work item by tag, or abandons', async () => {
    const alert = sampleAlert();
    await deliverWithRetries(azureDevOps, dest, body('alert.opened', alert), null, send);
    const found = await deliverWithRetries(azureDevOps, dest, body('alert.escalated', alert), null, send);
    expect(found.result).toMatchObject({ outcome: 'succeeded', ref: { workItemId: fake.byTag(`vigia-alert-${alert.id}`)[0]!.id } });
    const none = await deliverWithRetries(azureDevOps, dest, body('alert.acknowledged', sampleAlert()), null, send);
    expect(none.result.outcome).toBe('abandon');
  });

  it('validates config and credentials naming the field', () => {
    expect(azureDevOps.validate({ organizationUrl: 'https://dev.azure.com/acme', project: 'P' }, { personalAccessToken: 't' })).toBeNull();
    expect(azureDevOps.validate({ organizationUrl: 'https://dev.azure.com/acme' }, { personalAccessToken: 't' })).toMatch(/config\.project/);
    expect(azureDevOps.validate({ organizationUrl: 'dev.azure.com/acme', project: 'P' }, { personalAccessToken: 't' })).toMatch(/config\.organizationUrl/);
    expect(azureDevOps.validate({ organizationUrl: 'https://dev.azure.com/acme', project: 'P' }, {})).toMatch(/credentials\.personalAccessToken/);
    expect(azureDevOps.urlFields({})).toEqual(['organizationUrl']);
  });
});
