import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg } from '../helpers/fixtures.js';

describe('admin API: organizations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('creates an org with defaults and returns it camelCase with ISO dates', async () => {
    const res = await t.admin('POST', '/orgs', { name: 'Acme' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const org = res.json();
    expect(org).toEqual({
      id: expect.any(String),
      name: 'Acme',
      suspended: false,
      escalationMinutes: 30,
      slaTargets: { mttaMinutes: 15, mttrMinutes: 240, availabilityPercent: 99.9 },
      language: 'pt-BR',
      timeZone: 'America/Sao_Paulo',
      emailReplyTo: null,
      ackRequiresSignIn: false,
      createdAt: '2026-06-15T12:00:00.000Z',
      updatedAt: '2026-06-15T12:00:00.000Z',
    });
    const got = await t.admin('GET', `/orgs/${org.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(org);
    const list = await t.admin('GET', '/orgs');
    expect(list.json()).toContainEqual(org);
  });

  it('accepts escalationMinutes null and custom SLA targets', async () => {
    const org = await createOrg(t, { escalationMinutes: null, slaTargets: { mttaMinutes: 5, mttrMinutes: 60, availabilityPercent: 99.5 } });
    expect(org.escalationMinutes).toBeNull();
    expect(org.slaTargets).toEqual({ mttaMinutes: 5, mttrMinutes: 60, availabilityPercent: 99.5 });
  });

  it('patches name, suspended, escalationMinutes and part of slaTargets', async () => {
    const org = await createOrg(t);
    const res = await t.admin('PATCH', `/orgs/${org.id}`, { name: 'Renamed', suspended: true, escalationMinutes: 10, slaTargets: { mttaMinutes: 7 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', suspended: true, escalationMinutes: 10, slaTargets: { mttaMinutes: 7, mttrMinutes: 240, availabilityPercent: 99.9 } });
    const off = await t.admin('PATCH', `/orgs/${org.id}`, { escalationMinutes: null });
    expect(off.json().escalationMinutes).toBeNull();
    expect(off.json().name).toBe('Renamed');
  });

  it.each([
    ['missing name', {}],
    ['empty name', { name: '' }],
    ['name not a string', { name: 42 }],
    ['unknown field', { name: 'x', colour: 'red' }],
    ['escalationMinutes as string', { name: 'x', escalationMinutes: '30' }],
    ['escalationMinutes zero', { name: 'x', escalationMinutes: 0 }],
    ['escalationMinutes fractional', { name: 'x', escalationMinutes: 1.5 }],
    ['unknown sla field', { name: 'x', slaTargets: { mtta: 1 } }],
    ['availability over 100', { name: 'x', slaTargets: { availabilityPercent: 101 } }],
    ['array body', [{ name: 'x' }]],
  ])('refuses POST /orgs with %s (400, nothing written)', async (_label, body) => {
    const before = (await t.ctx.db.query('SELECT count(*)::int AS n FROM orgs')).rows[0]!.n;
    const res = await t.admin('POST', '/orgs', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    const after = (await t.ctx.db.query('SELECT count(*)::int AS n FROM orgs')).rows[0]!.n;
    expect(after).toBe(before);
  });

  it('refuses malformed JSON, an empty PATCH, wrong PATCH types and unknown ids', async () => {
    const bad = await t.admin('POST', '/orgs', '{"name":', { 'content-type': 'application/json' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_request');
    const org = await createOrg(t);
    expect((await t.admin('PATCH', `/orgs/${org.id}`, {})).statusCode).toBe(400);
    expect((await t.admin('PATCH', `/orgs/${org.id}`, { suspended: 'yes' })).statusCode).toBe(400);
    expect((await t.admin('PATCH', `/orgs/${org.id}`, { language: 'es' })).statusCode).toBe(400);
    for (const timeZone of ['Mars/Olympus', '+03:00', 'BRT', '']) {
      const bad = await t.admin('PATCH', `/orgs/${org.id}`, { timeZone });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
    }
    expect((await t.admin('PATCH', `/orgs/${org.id}`, { id: 'other' })).statusCode).toBe(400);
    const missing = await t.admin('GET', '/orgs/org_nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'organization not found' } });
    expect((await t.admin('PATCH', '/orgs/org_nope', { name: 'x' })).statusCode).toBe(404);
    expect((await t.admin('GET', `/orgs/${org.id}`)).json().name).toBe(org.name);
  });

  it('keeps a time zone: set at creation, changed by PATCH, shown by GET', async () => {
    const created = await t.admin('POST', '/orgs', { name: 'Lisboa', timeZone: 'Europe/Lisbon', language: 'en' });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ timeZone: 'Europe/Lisbon', language: 'en' });
    const id = created.json().id;
    const patched = await t.admin('PATCH', `/orgs/${id}`, { timeZone: 'UTC' });
    expect(patched.json().timeZone).toBe('UTC');
    expect((await t.admin('GET', `/orgs/${id}`)).json().timeZone).toBe('UTC');
    expect((await t.admin('POST', '/orgs', { name: 'x', timeZone: 'Nowhere/Land' })).statusCode).toBe(400);
  });

  it('answers an oversize body with 413 and the envelope', async () => {
    const res = await t.admin('POST', '/orgs', { name: 'x'.repeat(5 * 1024 * 1024) });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });
});
