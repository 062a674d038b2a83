/**
 * Acknowledge links in messages (issue 37 item 4; docs/notifications.md, "Acknowledge from the
 * message"): GET shows a page and changes nothing, POST acknowledges once through the alert
 * lifecycle (the other destinations get alert.acknowledged, the link's own destination does
 * not), a second POST, an expired or a tampered link are refused with a page and the right
 * status, and an organization can require sign-in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openSession } from '../../src/access/sessions.js';
import { ackLinkUrl, loadAckKey, loadAckUrls } from '../../src/delivery/ack-links.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { createOrg, openAlert, resolveAlert } from '../helpers/fixtures.js';

const T0 = '2026-06-15T12:00:00.000Z';
let n = 0;
const TIMES = { idleMs: 3_600_000, maxMs: 43_200_000 };

describe('acknowledge links', () => {
  let t: TestApp;
  let clock: ManualClock;
  let orgId: string;
  let linkDest: string;
  let otherDest: string;

  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock, config: { destinationAllowlist: ['127.0.0.1'] } });
    orgId = (await createOrg(t, { name: 'Equipe BI' })).id;
    const mk = async (name: string) => {
      const res = await t.admin('POST', `/orgs/${orgId}/destinations`, { name, kind: 'webhook', url: `https://127.0.0.1:9/${name}` });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().id as string;
    };
    linkDest = await mk('canal-bi');
    otherDest = await mk('outro');
  });
  afterAll(() => t.close());

  async function linkFor(alertId: string, destinationId = linkDest, org = orgId): Promise<string> {
    const url = ackLinkUrl(t.ctx.config.baseUrl, await loadAckKey(t.ctx), { orgId: org, alertId, destinationId, now: clock.now() });
    expect(url.startsWith('https://vigia.example.test/ack/')).toBe(true);
    return new URL(url).pathname;
  }
  const get = (path: string, cookie?: string) => t.app.inject({ method: 'GET', url: path, headers: cookie ? { cookie } : {} });
  const post = (path: string, cookie?: string) =>
    t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) }, payload: '' });
  async function alert(alertId: string) {
    return (await t.admin('GET', `/orgs/${orgId}/alerts/${alertId}`)).json();
  }
  async function events(destinationId: string, alertId: string): Promise<string[]> {
    const { rows } = await t.ctx.db.query<{ event: string }>('SELECT event FROM deliveries WHERE destination_id = $1 AND alert_id = $2 ORDER BY event_seq', [destinationId, alertId]);
    return rows.map((r) => r.event);
  }
  const reasonOf = (html: string) => /data-reason="([a-z-]+)"/.exec(html)?.[1];

  it('GET shows a confirmation page in the organization language and changes nothing', async () => {
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${++n}`, title: 'Atualização <falhou> & "parou"' });
    const path = await linkFor(alertId);
    for (let i = 0; i < 3; i++) {
      const res = await get(path); // a mail scanner opens it, more than once
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('<html lang="pt-BR">');
      expect(res.body).toContain('Reconhecer este alerta?');
      expect(res.body).toContain(`<form method="post" action="${path}">`);
      expect(res.body).toContain('Atualização &#60;falhou&#62; &#38; &#34;parou&#34;');
      expect(res.body).toContain(`href="https://vigia.example.test/alerts/${alertId}">Ver no Vigia`);
      expect(res.body).not.toContain('<script');
      // Opened at 12:00 UTC, shown in the organization's time zone (São Paulo, UTC−3).
      expect(res.body).toContain('15/06/2026, 09:00 (America/Sao_Paulo)');
    }
    expect((await alert(alertId)).acknowledged).toBe(false);
    expect(await events(otherDest, alertId)).toEqual(['alert.opened']);
  });

  it('POST acknowledges once through the lifecycle: the other destinations are told, not the link’s own; a second POST is refused', async () => {
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const path = await linkFor(alertId);
    clock.advance(4 * 60_000);
    const res = await post(path);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('Alerta reconhecido');
    expect(res.body).toContain('<strong>canal-bi</strong>');
    const a = await alert(alertId);
    expect(a.acknowledged).toBe(true);
    expect(a.acknowledgedBy).toBe('canal-bi');
    expect(a.acknowledgedAt).toBe(new Date(Date.parse(T0) + 4 * 60_000).toISOString()); // MTTA counts it
    expect(await events(otherDest, alertId)).toEqual(['alert.opened', 'alert.acknowledged']);
    expect(await events(linkDest, alertId)).toEqual(['alert.opened']); // no echo
    const { rows: audit } = await t.ctx.db.query<{ action: string; actor_label: string }>('SELECT action, actor_label FROM audit_log WHERE org_id = $1 AND target = $2', [orgId, alertId]);
    expect(audit).toContainEqual({ action: 'alerts.acknowledge', actor_label: 'ack link: canal-bi' });

    const again = await post(path);
    expect(again.statusCode).toBe(410);
    expect(reasonOf(again.body)).toBe('used');
    expect(again.body).toContain('já foi usado');
    expect((await get(path)).statusCode).toBe(410);
    clock.set(T0);
  });

  it('an expired link (24 h) is refused with 410 and acknowledges nothing', async () => {
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const path = await linkFor(alertId);
    clock.advance(24 * 60 * 60_000 - 1000);
    expect((await get(path)).statusCode).toBe(200);
    clock.advance(1000);
    const res = await post(path);
    expect(res.statusCode).toBe(410);
    expect(reasonOf(res.body)).toBe('expired');
    expect((await alert(alertId)).acknowledged).toBe(false);
    clock.set(T0);
  });

  it('a tampered or malformed link is refused with a page, never a 500', async () => {
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const path = await linkFor(alertId);
    const [v, payload, sig] = path.slice('/ack/'.length).split('.');
    // Another alert's id in the payload with the original signature.
    const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    forged.a = 'alt_other';
    const swapped = `/ack/${v}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${sig}`;
    const flipped = `/ack/${v}.${payload}.${sig!.slice(0, -1)}${sig!.endsWith('A') ? 'B' : 'A'}`;
    for (const p of [swapped, flipped]) {
      const res = await post(p);
      expect(res.statusCode).toBe(403);
      expect(reasonOf(res.body)).toBe('forged');
    }
    for (const p of ['/ack/nonsense', `/ack/${v}.${payload}`, `/ack/${'x'.repeat(900)}`]) {
      const res = await post(p);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    }
    expect((await alert(alertId)).acknowledged).toBe(false);
  });

  it('a resolved alert or an already acknowledged one answers 409; a deleted destination 404', async () => {
    const resolved = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const path = await linkFor(resolved);
    await resolveAlert(t, orgId, resolved);
    const res = await post(path);
    expect(res.statusCode).toBe(409);
    expect(reasonOf(res.body)).toBe('not-open');
    const acked = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const first = await linkFor(acked, otherDest);
    const second = await linkFor(acked);
    expect((await post(first)).statusCode).toBe(200);
    const late = await post(second);
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('já foi reconhecido por <strong>outro</strong>');
    const gone = await t.admin('POST', `/orgs/${orgId}/destinations`, { name: 'temp', kind: 'webhook', url: 'https://127.0.0.1:9/temp' });
    const goneId = gone.json().id;
    const open = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const tempPath = await linkFor(open, goneId);
    expect((await t.admin('DELETE', `/orgs/${orgId}/destinations/${goneId}`)).statusCode).toBe(204);
    expect((await post(tempPath)).statusCode).toBe(404);
  });

  it('the page is in English for an English organization', async () => {
    const en = (await createOrg(t, { name: 'English', language: 'en' })).id;
    const d = await t.admin('POST', `/orgs/${en}/destinations`, { name: 'team', kind: 'webhook', url: 'https://127.0.0.1:9/en' });
    const alertId = await openAlert(t, en, { sourceId: `ds-${++n}` });
    const path = await linkFor(alertId, d.json().id, en);
    const res = await get(path);
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toContain('Acknowledge this alert?');
    expect(res.body).toContain('View in Vigia');
  });

  it('with sign-in required: the page sends to the console sign-in; POST needs an operator session and names the person', async () => {
    expect((await t.admin('PATCH', `/orgs/${orgId}`, { ackRequiresSignIn: true })).json().ackRequiresSignIn).toBe(true);
    const alertId = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const path = await linkFor(alertId);
    const page = await get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/?next=${encodeURIComponent(path)}"`);
    expect(page.body).not.toContain('<form');
    const anonymous = await post(path);
    expect(anonymous.statusCode).toBe(401);
    expect((await alert(alertId)).acknowledged).toBe(false);

    const session = async (email: string, role: string) => {
      const m = await t.admin('PUT', `/orgs/${orgId}/members`, { email, role });
      const s = await openSession(t.ctx.db, { personId: m.json().id, now: clock.now(), times: TIMES });
      return `vigia_session=${s.id}`;
    };
    const viewer = await post(path, await session('viewer@example.test', 'viewer'));
    expect(viewer.statusCode).toBe(403);
    expect(reasonOf(viewer.body)).toBe('forbidden');
    const operator = await session('ana@example.test', 'operator');
    expect((await get(path, operator)).body).toContain('<form method="post"');
    const ok = await post(path, operator);
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await alert(alertId)).acknowledgedBy).toBe('ana@example.test');
    await t.admin('PATCH', `/orgs/${orgId}`, { ackRequiresSignIn: false });
  });

  it('the message builder gets links only for open, unacknowledged alerts', async () => {
    const open = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    const resolved = await openAlert(t, orgId, { sourceId: `ds-${++n}` });
    await resolveAlert(t, orgId, resolved);
    const urls = await loadAckUrls(t.ctx.db, await loadAckKey(t.ctx), t.ctx.config.baseUrl, { orgId, destinationId: linkDest, alertIds: [open, resolved], now: clock.now() });
    expect([...urls.keys()]).toEqual([open]);
    expect((await get(new URL(urls.get(open)!).pathname)).statusCode).toBe(200);
  });
});
