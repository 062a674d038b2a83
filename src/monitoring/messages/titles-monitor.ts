/** Titles of the monitor's own incidents (self-watch.ts, collector-behind.ts, first-pass.ts; the catalog: titles.ts). */
import type { Texts } from '../../orgs/language.js';
import { both, type Said, said } from './titles-kit.js';

// ---- The monitor's own incidents (self-watch.ts, collector-behind.ts, first-pass.ts) ----

const TENANT_PROBLEM = {
  TenantAuthFailed: both('Vigia cannot sign in to the tenant', 'O Vigia não consegue entrar no tenant'),
  TenantAccessDenied: both('The tenant refuses Vigia access to its APIs', 'O tenant recusa ao Vigia o acesso às suas APIs'),
  TenantThrottled: both('The tenant keeps throttling Vigia', 'O tenant continua limitando o Vigia'),
  TenantUnreachable: both('Vigia cannot connect to the tenant', 'O Vigia não consegue se conectar ao tenant'),
} as const;

export function tenantProblemTitle(problem: keyof typeof TENANT_PROBLEM, tenant: string): Texts {
  const t = TENANT_PROBLEM[problem];
  return both(`${t.en}: ${tenant}`, `${t['pt-BR']}: ${tenant}`);
}

export function collectorBehindTitle(kind: 'failure' | 'recovery', collector: string, tenant: string): Texts {
  return kind === 'failure'
    ? both(`Vigia's ${collector} collector is falling behind: ${tenant}`, `O coletor ${collector} do Vigia está atrasado: ${tenant}`)
    : both(`Vigia's collectors caught up: ${tenant}`, `Os coletores do Vigia se atualizaram: ${tenant}`);
}

export function collectorBehindDetail(collector: string, deferred: number, polled: number, runs: number, since: string): Texts {
  return both(
    `${collector} left ${deferred} due resource(s) unread (read ${polled}) in ${runs} run(s) in a row since ${since}; they wait for later runs.`,
    `${collector} deixou ${deferred} recurso(s) devido(s) sem ler (leu ${polled}) em ${runs} execução(ões) seguidas desde ${since}; eles esperam as próximas execuções.`,
  );
}

export const collectorCaughtUp = (collector: string): Texts => both(`${collector} caught up`, `${collector} se atualizou`);

/** Why a deleted tenant's own incidents recover. */
export const TENANT_DELETED: Texts = both('the tenant connection was deleted', 'a conexão do tenant foi excluída');

/** TenantConnected: how many problems the first look found, where they are, and whether anyone was paged. */
export function tenantConnected(tenant: string, found: number, paged: boolean, silenceReason: string, list: string, api: string): Said {
  const problems = both(found === 1 ? '1 problem' : `${found} problems`, found === 1 ? '1 problema já presente' : `${found} problemas já presentes`);
  const how = paged
    ? both('They were delivered as usual (pageFindingsAtConnection is on).', 'Foram entregues normalmente (pageFindingsAtConnection ligado).')
    : both(
        `They are open and silenced with the reason "${silenceReason}": no one was paged for them, and they stay quiet until they resolve; a failure after that pages as usual.`,
        `Estão abertos e silenciados com o motivo "${silenceReason}": ninguém foi acionado por eles, e ficam quietos até se resolverem; uma falha depois disso aciona normalmente.`,
      );
  return said(
    both(`Tenant connected with ${problems.en} already present: ${tenant}`, `Tenant conectado com ${problems['pt-BR']}: ${tenant}`),
    both(
      `Vigia's first look at ${tenant} found ${problems.en} already present. ${how.en}\nSee them: ${list} (admin API: ${api}).`,
      `O primeiro olhar do Vigia sobre ${tenant} encontrou ${problems['pt-BR']}. ${how['pt-BR']}\nVeja-os: ${list} (API de administração: ${api}).`,
    ),
  );
}
