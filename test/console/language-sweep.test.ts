// @engine-neutral: what the browser shows; the texts behind each page come from the same catalogs on both engines
/**
 * Issue 39 item 4: every console page reachable from the menu, in Portuguese and in English,
 * holds no word of the other language. Each language has its own organization (its stored titles
 * are in its language) with two tenants of the tenant simulator — one whose secret is refused, so
 * collector errors and check details show — after one pass of every collector. A word list per
 * language is the test: English words that never belong in a pt-BR sentence, and Portuguese
 * ones that never belong in an English one.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COLLECTORS } from '../../src/monitoring/registry.js';
import { CollectorScheduler } from '../../src/monitoring/scheduler.js';
import type { TenantSim } from '../../src/tenant-sim/index.js';
import { openConsole, useConsoleServer } from '../helpers/console-session.js';
import { startSim } from '../tenant-sim/helpers.js';

const PAGES = ['/overview', '/capacities', '/workspaces', '/gateways', '/semantic-models', '/tenants', '/alerts', '/silences', '/destinations', '/api-keys', '/members', '/tokens', '/audit', '/orgs'];

/** Words of the other language, matched whole (case-insensitive). */
const FOREIGN: Record<'pt-BR' | 'en', RegExp> = {
  'pt-BR': /\b(the|found|windows|everything|failed|refused|wrong|answered|missing|never|should|could|which|cannot|throttling|unavailable|nothing|there)\b/i,
  en: /(?<![\p{L}])(não|está|são|conexão|nenhum|nenhuma|também|já|então|falhou|abertos|coletor|janelas|permissões|credenciais|recusou|segredo|tempo|ainda)(?![\p{L}])/iu,
};

describe('console pages speak one language', () => {
  const session = useConsoleServer({ config: { destinationAllowlist: ['127.0.0.1'] } });
  let sim: TenantSim;
  const orgs: Record<'pt-BR' | 'en', string> = { 'pt-BR': 'Org pt', en: 'Org en' };

  beforeAll(async () => {
    const t = session.server.t;
    sim = await startSim({ seed: 29, sizes: { capacities: 2, workspaces: 2, gateways: 1 } });
    for (const lang of ['pt-BR', 'en'] as const) {
      const org = await t.admin('POST', '/orgs', { name: orgs[lang], language: lang });
      expect(org.statusCode, org.body).toBe(201);
      const orgId = org.json().id as string;
      for (const [name, secret] of [['Simulado', sim.clientSecret], ['Recusado', 'not-the-secret']] as const) {
        const res = await t.admin('POST', `/orgs/${orgId}/tenants`, {
          name,
          tenantId: sim.tenantId,
          clientId: sim.clientId,
          credentials: { clientSecret: secret },
          mode: 'admin',
          endpoints: { authorityHost: sim.origin, powerBi: sim.origin, fabric: sim.origin, arm: sim.origin },
        });
        expect(res.statusCode, res.body).toBe(201);
      }
    }
    const scheduler = new CollectorScheduler(t.ctx, { pollMs: 60_000, stopTimeoutMs: 5_000, collectors: DEFAULT_COLLECTORS, maxConcurrent: 64, transport: { timeoutMs: 10_000 } });
    try {
      // Every collector due now (a new connection's first runs are spread over a few seconds).
      await t.ctx.db.query("UPDATE collector_schedules SET next_run_at = now() - interval '1 second'");
      for (let i = 0; i < 5 && (await scheduler.pass()) > 0; i++);
    } finally {
      await scheduler.stop();
    }
  }, 300_000);
  afterAll(async () => {
    await sim?.stop();
  });

  /** The page's visible text, after its lists have loaded. */
  async function textOf(p: Page, path: string): Promise<string> {
    await p.goto(`${session.server.origin}${path}`);
    await p.getByRole('heading', { level: 1 }).first().waitFor();
    await p.waitForLoadState('networkidle');
    if (path === '/tenants') {
      // The check of the refused connection: its details and fixes show on the card.
      const card = p.locator('article[data-tenant="Recusado"]');
      await card.getByRole('button', { name: /^(Verificar permissões|Check permissions)$/ }).click();
      await card.locator('[data-testid="check-result"]').waitFor();
    }
    // What a click shows counts too: every disclosure open (the collectors' table, the budget, the menu groups).
    await p.evaluate(() => {
      for (const d of document.querySelectorAll('details')) d.open = true;
    });
    return p.locator('body').innerText();
  }

  for (const lang of ['pt-BR', 'en'] as const) {
    it(`${lang}: no page holds a word of the other language`, async () => {
      const p = await openConsole(session.server, orgs[lang], { lang });
      const found: string[] = [];
      for (const path of PAGES) {
        const text = await textOf(p, path);
        if (path === '/tenants') {
          // The sweep sees what it is for: the refused secret in a collector's error and in the check's detail.
          const refused = lang === 'pt-BR' ? 'o segredo do cliente está errado (AADSTS7000215)' : 'the client secret is wrong (AADSTS7000215)';
          expect(text.split(refused).length - 1, text).toBeGreaterThanOrEqual(2);
        }
        for (const line of text.split('\n')) {
          const m = FOREIGN[lang].exec(line);
          if (m) found.push(`${path}: «${m[0]}» in: ${line.trim().slice(0, 200)}`);
        }
      }
      await p.context().close();
      expect(found).toEqual([]);
    }, 300_000);
  }
});
