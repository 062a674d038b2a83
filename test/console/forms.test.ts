// @engine-neutral: what the browser shows; the queries behind each page run on both engines in the API tests
/**
 * The console's forms in headless Chromium: every refused field carries `aria-invalid` and the
 * message through `aria-describedby` (one mechanism, `Field`), focus goes to the first refused
 * one, and nothing is sent; dates are typed in the console's language (pt-BR dd/mm/aaaa,
 * English mm/dd/yyyy, the pattern shown as the hint), read in the viewer's time zone, and sent
 * as UTC instants. Each test opens its own browser context and organization.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';

describe('console forms in Chromium: invalid fields and dates in the viewer’s language', () => {
  const session = useConsoleServer();

  /** A new organization and a fresh signed-in context (São Paulo time) showing `pathname`; with `en`, in English. */
  async function open(orgName: string, pathname: string, opts: { en?: boolean } = {}): Promise<{ p: Page; orgId: string; sent: string[] }> {
    const { server } = session;
    const orgId = (await server.t.admin('POST', '/orgs', { name: orgName })).json().id as string;
    // The changes the page sends (method and path), to show that a refused form sends nothing.
    const sent: string[] = [];
    const p = await openConsole(server, orgName, {
      locale: opts.en ? 'en-US' : 'pt-BR',
      beforeLoad: (page) => {
        page.on('request', (r) => {
          if (r.method() !== 'GET') sent.push(`${r.method()} ${new URL(r.url()).pathname}`);
        });
      },
    });
    if (opts.en) {
      await p.getByLabel('Idioma').selectOption('en');
      await p.locator('html[lang="en"]').waitFor({ state: 'attached' });
    }
    await p.goto(`${server.origin}${pathname}`);
    await p.getByRole('heading', { level: 1 }).first().waitFor();
    sent.length = 0;
    return { p, orgId, sent };
  }

  /** The control's invalid state as a screen reader gets it: aria-invalid and the text of what aria-describedby names. */
  async function invalidState(p: Page, id: string): Promise<{ invalid: string | null; message: string }> {
    return p.evaluate((controlId) => {
      const el = document.getElementById(controlId)!;
      const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
      return { invalid: el.getAttribute('aria-invalid'), message: ids.map((i) => document.getElementById(i)?.textContent ?? `(missing ${i})`).join(' | ') };
    }, id);
  }

  const focused = (p: Page) => p.evaluate(() => document.activeElement?.id ?? '');

  it('destination form: each refused field says so and why; fixing it clears the mark', async () => {
    const { p, sent } = await open('Formulários destino', '/destinations');
    await p.getByLabel('URL (https)').fill('http://inseguro.example.com/hook');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.locator('#dest-name-error').waitFor();
    expect(await invalidState(p, 'dest-name')).toEqual({ invalid: 'true', message: 'Nome: obrigatório.' });
    expect(await invalidState(p, 'dest-url')).toEqual({ invalid: 'true', message: 'URL (https): informe um endereço https:// completo.' });
    // Focus moves after the render that shows the messages: wait for it.
    await expect.poll(() => focused(p)).toBe('dest-name');
    expect(sent).toEqual([]);
    await p.getByLabel('Nome', { exact: true }).fill('Plantão');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.locator('#dest-name-error').waitFor({ state: 'detached' });
    expect(await invalidState(p, 'dest-name')).toEqual({ invalid: null, message: '' });
    expect((await invalidState(p, 'dest-url')).invalid).toBe('true');
    // Focus moves after the render that shows the messages: wait for it.
    await expect.poll(() => focused(p)).toBe('dest-url');
    expect(sent).toEqual([]);
    await p.context().close();
  });

  it('API key form: name, expiry day and scopes are marked; the day is read as dd/mm/aaaa in São Paulo', async () => {
    const { p, orgId, sent } = await open('Formulários chaves', '/api-keys');
    expect(await p.locator('#key-expires-hint').textContent()).toBe('Formato: dd/mm/aaaa');
    expect(await p.getByLabel('Expira em (opcional)').getAttribute('type')).toBe('text');
    await p.getByRole('checkbox', { name: 'ReadAlerts' }).uncheck();
    await p.getByLabel('Expira em (opcional)').fill('31/02/2099');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.locator('#key-name-error').waitFor();
    expect(await invalidState(p, 'key-name')).toEqual({ invalid: 'true', message: 'Nome: obrigatório.' });
    expect(await invalidState(p, 'key-expires')).toEqual({ invalid: 'true', message: 'Formato: dd/mm/aaaa | Expira em (opcional): essa data não existe.' });
    expect((await invalidState(p, 'key-scopes')).invalid).toBe('true');
    expect((await invalidState(p, 'key-scopes')).message).not.toBe('');
    // An ISO day is not the Portuguese pattern.
    await p.getByLabel('Expira em (opcional)').fill('2099-02-05');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.getByText('Expira em (opcional): use o formato dd/mm/aaaa.').waitFor();
    expect(sent).toEqual([]);

    await p.getByLabel('Nome', { exact: true }).fill('Exportação');
    await p.getByRole('checkbox', { name: 'ReadCosts' }).check();
    await p.getByLabel('Expira em (opcional)').fill('05/02/2099');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.getByTestId('shown-once').waitFor();
    const [key] = (await session.server.t.admin('GET', `/orgs/${orgId}/api-keys`)).json();
    // The end of 5 February 2099 in São Paulo (UTC−3), as a UTC instant.
    expect(key.expiresAt).toBe('2099-02-06T02:59:59.999Z');
    await p.context().close();
  });

  it('in English the same day is typed mm/dd/yyyy', async () => {
    const { p, orgId } = await open('Forms keys EN', '/api-keys', { en: true });
    expect(await p.locator('#key-expires-hint').textContent()).toBe('Format: mm/dd/yyyy');
    await p.getByLabel('Name', { exact: true }).fill('Export');
    await p.getByLabel('Expires (optional)').fill('13/05/2099');
    await p.getByRole('button', { name: 'Create' }).click();
    await p.getByText('Expires (optional): that date does not exist.').waitFor();
    await p.getByLabel('Expires (optional)').fill('02/05/2099');
    await p.getByRole('button', { name: 'Create' }).click();
    await p.getByTestId('shown-once').waitFor();
    expect((await session.server.t.admin('GET', `/orgs/${orgId}/api-keys`)).json()[0].expiresAt).toBe('2099-02-06T02:59:59.999Z');
    await p.context().close();
  });

  it('silence form: the end is required, in the future and in the pattern; it is sent as UTC', async () => {
    const { p, orgId, sent } = await open('Formulários silêncio', '/silences');
    expect(await p.locator('#silence-endsAt-hint').textContent()).toBe('Formato: dd/mm/aaaa hh:mm');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.locator('#silence-endsAt-error').waitFor();
    expect(await invalidState(p, 'silence-endsAt')).toEqual({ invalid: 'true', message: 'Formato: dd/mm/aaaa hh:mm | Informe quando o silêncio termina (no futuro).' });
    // Focus moves after the render that shows the messages: wait for it.
    await expect.poll(() => focused(p)).toBe('silence-endsAt');
    await p.getByLabel('Termina em').fill('01/01/2099 25:00');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.getByText('Termina em: essa data não existe.').waitFor();
    expect(sent).toEqual([]);
    await p.getByLabel('Termina em').fill('01/01/2099 10:30');
    await p.getByRole('button', { name: 'Criar' }).click();
    await p.getByRole('button', { name: /^Encerrar/ }).waitFor();
    expect((await session.server.t.admin('GET', `/orgs/${orgId}/silences`)).json()[0].endsAt).toBe('2099-01-01T13:30:00.000Z');
    await p.context().close();
  });

  it('alert filter: the start is read in the pattern and sent as a UTC instant', async () => {
    const { p } = await open('Formulários alertas', '/alerts');
    await p.getByLabel('De', { exact: true }).fill('99/99/2026');
    await p.getByRole('button', { name: 'Filtrar' }).click();
    await p.locator('#alerts-from-error').waitFor();
    expect((await invalidState(p, 'alerts-from')).invalid).toBe('true');
    const request = p.waitForRequest((r) => r.url().includes('/alerts?') && r.url().includes('from='));
    await p.getByLabel('De', { exact: true }).fill('25/11/2026 08:15');
    await p.getByRole('button', { name: 'Filtrar' }).click();
    expect(new URL((await request).url()).searchParams.get('from')).toBe('2026-11-25T11:15:00.000Z');
    expect((await invalidState(p, 'alerts-from')).invalid).toBeNull();
    await p.context().close();
  });

  it('tenant and member forms mark their required fields', async () => {
    const { p, sent } = await open('Formulários tenant', '/tenants');
    await p.getByRole('button', { name: 'Conectar tenant' }).click();
    await p.locator('#tn-name-error').waitFor();
    for (const id of ['tn-name', 'tn-tenant-id', 'tn-client-id', 'tn-secret']) expect((await invalidState(p, id)).invalid, id).toBe('true');
    // Focus moves after the render that shows the messages: wait for it.
    await expect.poll(() => focused(p)).toBe('tn-name');
    await p.goto(`${session.server.origin}/members`);
    await p.getByLabel('E-mail').fill('sem-arroba');
    await p.getByRole('button', { name: 'Salvar' }).click();
    await p.locator('#member-email-error').waitFor();
    expect(await invalidState(p, 'member-email')).toEqual({ invalid: 'true', message: 'E-mail: informe um e-mail (nome@empresa.com).' });
    expect(sent).toEqual([]);
    await p.context().close();
  });
});
