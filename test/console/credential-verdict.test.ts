// @engine-neutral: what the browser shows; the save's verdict is tested on both engines in test/monitoring/sign-in-on-save.test.ts
/**
 * Issue 39 item 2 in the console: connecting a tenant with a wrong secret saves it and shows the
 * token endpoint's verdict at once, in the viewer's language — the credentials were refused, the
 * detail and the fix in Portuguese — under a heading that speaks of the sign-in, not of
 * permissions; the right secret says the token endpoint accepted it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { clickNavLink } from '../helpers/console-nav.js';
import { startSim } from '../tenant-sim/helpers.js';

const ORG_NAME = 'Verdict org';

describe('console: the connect form shows the token endpoint verdict', () => {
  const session = useConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'] }, orgName: ORG_NAME });
  let sim: TenantSim;
  beforeAll(async () => {
    sim = await startSim({ seed: 23, sizes: { capacities: 1, workspaces: 1 } });
  }, 180_000);
  afterAll(async () => {
    await sim?.stop();
  });

  it('a wrong secret: saved anyway, and the refusal shown in Portuguese; the right one: accepted', async () => {
    const p = await openConsole(session.server, ORG_NAME);
    await clickNavLink(p, 'Tenant');
    await p.getByRole('heading', { level: 1, name: 'Conexões de tenant' }).waitFor();
    const connect = async (name: string, secret: string) => {
      await p.getByLabel('Nome', { exact: true }).fill(name);
      await p.getByLabel('ID do tenant (Entra ID)').fill(sim.tenantId);
      await p.getByLabel('ID do aplicativo (cliente)').fill(sim.clientId);
      await p.locator('#tn-secret').fill(secret);
      const endpoints = p.getByText('Endereços (avançado: simuladores e nuvens soberanas)');
      if (!(await p.getByLabel('Autoridade (login)').isVisible())) await endpoints.click();
      for (const label of ['Autoridade (login)', 'API do Power BI', 'API do Fabric', 'Azure Resource Manager']) await p.getByLabel(label).fill(sim.origin);
      await p.getByRole('button', { name: 'Conectar tenant' }).click();
    };

    await connect('Errado', 'not-the-secret');
    await p.getByText('Tenant Errado salvo mesmo assim, mas a verificação das credenciais falhou: veja como corrigir abaixo.').waitFor();
    const verdict = p.getByRole('region', { name: 'Resultado da verificação de Errado' });
    await verdict.getByText('O endpoint de token recusou as credenciais; veja como corrigir abaixo.').waitFor();
    const token = verdict.locator('[data-check="token.powerbi"]');
    expect(await token.getAttribute('data-ok')).toBe('false');
    const text = (await token.textContent())!;
    expect(text).toContain('o endpoint de token recusou as credenciais: o segredo do cliente está errado (AADSTS7000215)');
    expect(text).toContain('O segredo do cliente está errado');
    expect(text).not.toMatch(/\b(the|refused|wrong|secret)\b/);
    expect(await verdict.textContent()).not.toContain('Faltam permissões');
    // Saved: the card is there.
    await p.locator('article[data-tenant="Errado"]').waitFor();

    await connect('Certo', sim.clientSecret);
    await p.getByText('Tenant Certo conectado; o endpoint de token aceitou as credenciais.').waitFor();
    const ok = p.getByRole('region', { name: 'Resultado da verificação de Certo' });
    expect(await ok.locator('[data-check="token.powerbi"]').getAttribute('data-ok')).toBe('true');
    expect(await p.content()).not.toContain(sim.clientSecret);
    await p.context().close();
  }, 120_000);
});
