/**
 * `POST …/tenants/{id}/check`: tells a person exactly what is missing for a connection, each
 * item with its fix in Portuguese and English — a token per audience, the admin APIs (admin
 * mode), membership of each listed workspace, Cost Management read at each cost scope. Every
 * call goes through the same client as the collectors (budgets, limits, destination safety).
 * A failure names its real cause (a refused secret, throttling, an untrusted certificate, a
 * host not found, an address the destination-safety rules refuse…) with the fix for that cause;
 * the credentials' fix is given only when the token endpoint refused them. A refused sign-in
 * also opens TenantAuthFailed.
 */
import type { AppContext } from '../context.js';
import { COST_API_VERSION } from './sources/costs/cost-query.js';
import type { Audience } from './connection/endpoints.js';
import { errorDetail, NoWorkspaceError } from './messages/errors.js';
import { FIX_TOKEN_OTHER, fixForFailure, type Texts } from './messages/fixes.js';
import { type PlatformClient, VendorHttpError } from './platform/platform-client.js';
import { problemDetail } from './engine/self-watch.js';
import { reportRefusedSignIn } from './engine/sign-in-refusal.js';
import { TokenRefusedError, TokenUnavailableError } from './platform/token-errors.js';
import { loadTenant, type TenantRow } from './connection/tenant-row.js';
import { clientForTenant } from './platform/tenant-client.js';
import type { TenantTokens } from './platform/tokens.js';
import { VendorCallError, createTransport, type Transport } from './platform/transport.js';
import { utilizationChecks } from './sources/utilization/utilization-check.js';
import { utilizationOf } from './connection/utilization-settings.js';
import { windowUrl } from './sources/activity/activity-windows.js';

export interface CheckItem {
  id: string;
  ok: boolean;
  audience?: Audience;
  scope?: string;
  workspaceId?: string;
  title: Texts;
  fix: Texts | null;
  detail?: string;
  /** `detail` in both languages, from the error catalog (messages/errors.ts). */
  detailText?: Texts;
  /** Why it failed when the cause is known: a credential problem, `throttled`, or a connection cause. */
  cause?: string;
  /** What this connection cannot do by its mode, said with the fix; it does not make the check fail. */
  advisory?: boolean;
}

/** One fix, once, with the failed items it covers (`token.powerbi`, `cost.read /subscriptions/…`). */
export interface FixGroup {
  fix: Texts;
  items: string[];
}

export interface CheckResult {
  ok: boolean;
  checks: CheckItem[];
  /** The failed items' fixes, each given once (a refused secret fails every token and probe: one fix). */
  fixes: FixGroup[];
}

type ItemHead = Omit<CheckItem, 'ok' | 'fix' | 'detail' | 'detailText' | 'cause' | 'advisory'>;

const AUDIENCE_NAMES: Record<Audience, string> = { powerbi: 'Power BI', fabric: 'Fabric', arm: 'Azure Resource Manager', kusto: 'Eventhouse (Kusto)' };

const FIX_ADMIN: Texts = {
  'pt-BR':
    'No portal de administração do Fabric (Configurações do tenant), habilite "As entidades de serviço podem usar as APIs do Fabric" e "As entidades de serviço podem acessar APIs de administração somente leitura" para um grupo de segurança que contenha esta entidade de serviço; o aplicativo não pode ter permissões do Power BI com consentimento do administrador. Sem direitos de administrador do tenant, use o modo "member".',
  en: 'In the Fabric admin portal (Tenant settings), enable "Service principals can use Fabric APIs" and "Service principals can access read-only admin APIs" for a security group that contains this service principal; the app must have no admin-consented Power BI permissions. Without tenant admin rights, use "member" mode.',
};
const fixWorkspace = (id: string): Texts => ({
  'pt-BR': `Adicione a entidade de serviço como membro (Visualizador ou superior) do workspace ${id} em "Gerenciar acesso".`,
  en: `Add the service principal as a member (Viewer or higher) of workspace ${id} under "Manage access".`,
});
const FIX_NO_WORKSPACES: Texts = {
  'pt-BR': 'A entidade de serviço não é membro de nenhum workspace: adicione-a (Visualizador ou superior) aos workspaces que o Vigia deve observar.',
  en: 'The service principal is a member of no workspace: add it (Viewer or higher) to the workspaces Vigia should watch.',
};
const fixCost = (scope: string): Texts => ({
  'pt-BR': `Atribua a função "Leitor de Gerenciamento de Custos" (Cost Management Reader) à entidade de serviço no escopo ${scope} (Controle de acesso (IAM) da assinatura ou do grupo de recursos).`,
  en: `Assign the "Cost Management Reader" role to the service principal at scope ${scope} (Access control (IAM) of the subscription or resource group).`,
});

/** The cause a person can act on, when the failure names one. */
function causeOf(err: unknown): string | undefined {
  if (err instanceof TokenRefusedError) return err.problem;
  if (err instanceof TokenUnavailableError) return 'throttled';
  if (err instanceof VendorCallError && err.connection) return err.connection;
  return undefined;
}

/** A failed item: the fix for the failure's own cause when it has one, else the item's. */
function failed(head: ItemHead, err: unknown, itemFix: Texts): CheckItem {
  return { ...head, ok: false, fix: fixForFailure(err) ?? itemFix, ...errorDetail(err), ...(causeOf(err) ? { cause: causeOf(err) } : {}) };
}

export async function checkTenant(ctx: AppContext, orgId: string, id: string): Promise<CheckResult> {
  const tenant = await loadTenant(ctx.db, orgId, id);
  const transport = createTransport(ctx, { timeoutMs: 15_000, maxResponseBytes: 8 * 1024 * 1024 });
  try {
    return await runChecks(ctx, tenant, transport);
  } finally {
    await transport.close();
  }
}

async function runChecks(ctx: AppContext, tenant: TenantRow, transport: Transport): Promise<CheckResult> {
  const { client, tokens } = clientForTenant(ctx, tenant, transport, 60_000);
  const { items, failures } = await checkTokens(tokens);
  const refusal = [...failures.values()].find((e) => e instanceof TokenRefusedError);
  if (refusal) await reportRefusedSignIn(ctx, tenant, problemDetail(refusal, 'check'));
  const checks = [...items];
  for (const probe of probesFor(ctx, tenant, client)) {
    const tokenFailure = failures.get(probe.audience);
    if (tokenFailure) {
      const { detail, detailText } = errorDetail(tokenFailure);
      const noToken = { detail: `no token for this audience: ${detail}`, detailText: { en: `no token for this audience: ${detailText.en}`, 'pt-BR': `sem token para esta audiência: ${detailText['pt-BR']}` } };
      checks.push({ ...failed(probe.head, tokenFailure, FIX_TOKEN_OTHER), ...noToken });
      continue;
    }
    try {
      await probe.call();
      checks.push({ ...probe.head, ok: true, fix: null });
    } catch (err) {
      checks.push(failed(probe.head, err, probe.fix));
    }
  }
  checks.push(...(await utilizationChecks(client, tokens, utilizationOf(tenant.utilization), ctx.clock.now())));
  if (tenant.mode === 'member') checks.push(ACTIVITY_IN_MEMBER_MODE);
  return { ok: checks.every((c) => c.ok || c.advisory), checks, fixes: groupFixes(checks) };
}

/** Each distinct fix of the failed items once, in the order the checks first need it. */
export function groupFixes(checks: CheckItem[]): FixGroup[] {
  const groups = new Map<string, FixGroup>();
  for (const c of checks) {
    if (c.ok || !c.fix) continue;
    const item = c.scope ? `${c.id} ${c.scope}` : c.workspaceId ? `${c.id} ${c.workspaceId}` : c.id;
    const group = groups.get(c.fix.en);
    if (group) group.items.push(item);
    else groups.set(c.fix.en, { fix: c.fix, items: [item] });
  }
  return [...groups.values()];
}

/** One token per audience; the failures are kept so the probes that need them say why they cannot run. */
export async function checkTokens(tokens: TenantTokens, audiences: readonly Audience[] = ['powerbi', 'fabric', 'arm']): Promise<{ items: CheckItem[]; failures: Map<Audience, unknown> }> {
  const items: CheckItem[] = [];
  const failures = new Map<Audience, unknown>();
  for (const audience of audiences) {
    const head: ItemHead = { id: `token.${audience}`, audience, title: { 'pt-BR': `Token para ${AUDIENCE_NAMES[audience]}`, en: `Token for ${AUDIENCE_NAMES[audience]}` } };
    try {
      await tokens.get(audience);
      items.push({ ...head, ok: true, fix: null });
    } catch (err) {
      failures.set(audience, err);
      items.push(failed(head, err, FIX_TOKEN_OTHER));
    }
  }
  return { items, failures };
}

interface Probe {
  head: ItemHead;
  fix: Texts;
  audience: Audience;
  call: () => Promise<unknown>;
}

/** The access checks this connection needs, by its mode, workspaces and cost scopes. */
function probesFor(ctx: AppContext, tenant: TenantRow, client: PlatformClient): Probe[] {
  const probes: Probe[] = [];
  if (tenant.mode === 'admin') {
    probes.push({
      head: { id: 'admin.fabric', title: { 'pt-BR': 'APIs de administração do Fabric (somente leitura)', en: 'Fabric read-only admin APIs' } },
      fix: FIX_ADMIN,
      audience: 'fabric',
      call: () => client.json({ family: 'fabric-admin', audience: 'fabric', url: `${client.fabric('/admin/workspaces')}?state=Active` }),
    });
    probes.push(activityProbe(ctx, client));
    probes.push({
      head: { id: 'admin.powerbi', title: { 'pt-BR': 'APIs de administração do Power BI (somente leitura)', en: 'Power BI read-only admin APIs' } },
      fix: FIX_ADMIN,
      audience: 'powerbi',
      call: () => client.json({ family: 'powerbi-admin', audience: 'powerbi', url: client.powerBi('/admin/capacities') }),
    });
  } else if (!tenant.workspaces) {
    probes.push({
      head: { id: 'member.workspaces', title: { 'pt-BR': 'Workspaces dos quais a entidade de serviço é membro', en: 'Workspaces the service principal belongs to' } },
      fix: FIX_NO_WORKSPACES,
      audience: 'fabric',
      call: async () => {
        const page = await client.json<{ value?: unknown[] }>({ family: 'fabric', audience: 'fabric', url: client.fabric('/workspaces') });
        if (!page?.value?.length) throw new NoWorkspaceError();
      },
    });
  }
  for (const workspaceId of tenant.workspaces ?? []) {
    probes.push({
      head: { id: 'workspace.membership', workspaceId, title: { 'pt-BR': `Acesso ao workspace ${workspaceId}`, en: `Access to workspace ${workspaceId}` } },
      fix: fixWorkspace(workspaceId),
      audience: 'fabric',
      call: () => client.json({ family: 'fabric', audience: 'fabric', url: client.fabric(`/workspaces/${workspaceId}`) }),
    });
  }
  for (const scope of tenant.cost_scopes) probes.push(costProbe(ctx, client, scope));
  return probes;
}

/** The activity log (the `activity` collector): the last minute of today, one call of its 200/h. */
function activityProbe(ctx: AppContext, client: PlatformClient): Probe {
  return {
    head: { id: 'admin.activity', title: { 'pt-BR': 'Log de atividades do tenant (o que mudou)', en: "The tenant's activity log (what changed)" } },
    fix: FIX_ADMIN,
    audience: 'powerbi',
    call: async () => {
      const now = ctx.clock.now();
      const start = new Date(Math.max(now.getTime() - 60_000, Math.floor(now.getTime() / 86_400_000) * 86_400_000));
      try {
        await client.json({ family: 'powerbi-admin', audience: 'powerbi', url: windowUrl(client.powerBi('/admin/activityevents'), { start, end: now, after: now }) });
      } catch (err) {
        // A 400 is about the window (a clock far from the platform's), after the principal was let in: access is there.
        if (!(err instanceof VendorHttpError && err.status === 400)) throw err;
      }
    },
  };
}

/** Member mode cannot read the activity log (an admin API): said, with the fix, without failing the check. */
const ACTIVITY_IN_MEMBER_MODE: CheckItem = {
  id: 'activity.log',
  ok: false,
  advisory: true,
  title: { 'pt-BR': 'Log de atividades do tenant (o que mudou)', en: "The tenant's activity log (what changed)" },
  fix: {
    'pt-BR':
      'No modo "member" o Vigia não lê o log de atividades (é uma API de administração), então os incidentes não dizem o que mudou antes da falha. Para ler: use o modo "admin" com uma entidade de serviço autorizada nas configurações do tenant ("As entidades de serviço podem acessar APIs de administração somente leitura").',
    en: 'In "member" mode Vigia does not read the activity log (an admin API), so incidents do not say what changed before the failure. To read it: use "admin" mode with a service principal allowed by the tenant settings ("Service principals can access read-only admin APIs").',
  },
  detail: 'member mode: the activity collector makes no call',
};

/** A one-day Cost Management query at the scope: the smallest read that proves the role. */
function costProbe(ctx: AppContext, client: PlatformClient, scope: string): Probe {
  return {
    head: { id: 'cost.read', scope, title: { 'pt-BR': `Leitura de custos em ${scope}`, en: `Cost read at ${scope}` } },
    fix: fixCost(scope),
    audience: 'arm',
    call: () => {
      const to = ctx.clock.now();
      const from = new Date(to.getTime() - 24 * 3600 * 1000);
      return client.json({
        family: 'cost',
        audience: 'arm',
        method: 'POST',
        url: `${client.arm(scope)}/providers/Microsoft.CostManagement/query?api-version=${COST_API_VERSION}`,
        body: {
          type: 'ActualCost',
          timeframe: 'Custom',
          timePeriod: { from: from.toISOString(), to: to.toISOString() },
          dataset: { aggregation: { totalCost: { name: 'Cost', function: 'Sum' } } },
        },
      });
    },
  };
}
