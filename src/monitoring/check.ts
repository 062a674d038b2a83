/**
 * `POST …/tenants/{id}/check`: tells a person exactly what is missing for a connection, each
 * item with its fix in Portuguese and English — a token per audience, the admin APIs (admin
 * mode), membership of each listed workspace, Cost Management read at each cost scope. Every
 * call goes through the same client as the collectors (budgets, limits, destination safety).
 */
import type { AppContext } from '../context.js';
import { BudgetExhaustedError } from './budget.js';
import type { Audience } from './endpoints.js';
import { PlatformClient, ThrottledError, VendorHttpError, type RunStats } from './platform-client.js';
import { COST_API_VERSION } from './collectors/cost-query.js';
import { endpointsOf, loadTenant, openCredentials, type TenantRow } from './tenants.js';
import { TenantTokens, TokenRefusedError } from './tokens.js';
import { createTransport } from './transport.js';
import { takeCall } from './budget.js';
import { utilizationChecks } from './utilization-check.js';
import { utilizationOf } from './utilization-settings.js';

type Texts = { 'pt-BR': string; en: string };

export interface CheckItem {
  id: string;
  ok: boolean;
  audience?: Audience;
  scope?: string;
  workspaceId?: string;
  title: Texts;
  fix: Texts | null;
  detail?: string;
}

export interface CheckResult {
  ok: boolean;
  checks: CheckItem[];
}

const AUDIENCE_NAMES: Record<Audience, string> = { powerbi: 'Power BI', fabric: 'Fabric', arm: 'Azure Resource Manager', kusto: 'Eventhouse (Kusto)' };

const FIX_TOKEN: Texts = {
  'pt-BR':
    'Confira no Microsoft Entra ID (Registros de aplicativo) o ID do locatário e o ID do aplicativo (cliente); crie um novo segredo do cliente ou envie o certificado em "Certificados e segredos" e atualize as credenciais desta conexão.',
  en: 'In Microsoft Entra ID (App registrations), check the tenant ID and the application (client) ID; create a new client secret or upload the certificate under "Certificates & secrets", then update this connection\'s credentials.',
};
const FIX_ADMIN: Texts = {
  'pt-BR':
    'No portal de administração do Fabric (Configurações do locatário), habilite "As entidades de serviço podem usar as APIs do Fabric" e "As entidades de serviço podem acessar APIs de administração somente leitura" para um grupo de segurança que contenha esta entidade de serviço; o aplicativo não pode ter permissões do Power BI com consentimento do administrador. Sem direitos de administrador do locatário, use o modo "member".',
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

function failureDetail(err: unknown): string {
  if (err instanceof TokenRefusedError || err instanceof VendorHttpError || err instanceof ThrottledError || err instanceof BudgetExhaustedError) return err.message;
  return err instanceof Error ? err.message : 'unknown error';
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

async function runChecks(ctx: AppContext, tenant: TenantRow, transport: ReturnType<typeof createTransport>): Promise<CheckResult> {
  const endpoints = endpointsOf(tenant);
  const tokens = new TenantTokens(
    { tenantId: tenant.tenant_id, clientId: tenant.client_id, authorityHost: endpoints.authorityHost, credentials: openCredentials(ctx, tenant) },
    transport,
    () => takeCall(ctx.db, tenant.tenant_id, 'token', ctx.clock.now()),
  );
  const stats: RunStats = { calls: 0, throttledCalls: 0 };
  const client = new PlatformClient({
    db: ctx.db,
    now: () => ctx.clock.now(),
    transport,
    tokens,
    directoryId: tenant.tenant_id,
    endpoints,
    stats,
    deadline: Date.now() + 60_000,
  });
  const checks: CheckItem[] = [];
  const tokenOk = new Map<Audience, boolean>();
  for (const audience of ['powerbi', 'fabric', 'arm'] as const) {
    const title = { 'pt-BR': `Token para ${AUDIENCE_NAMES[audience]}`, en: `Token for ${AUDIENCE_NAMES[audience]}` };
    try {
      await tokens.get(audience);
      tokenOk.set(audience, true);
      checks.push({ id: `token.${audience}`, ok: true, audience, title, fix: null });
    } catch (err) {
      tokenOk.set(audience, false);
      checks.push({ id: `token.${audience}`, ok: false, audience, title, fix: FIX_TOKEN, detail: failureDetail(err) });
    }
  }

  const probe = async (item: Omit<CheckItem, 'ok' | 'fix' | 'detail'>, fix: Texts, call: () => Promise<unknown>, need: Audience) => {
    if (!tokenOk.get(need)) {
      checks.push({ ...item, ok: false, fix: FIX_TOKEN, detail: 'no token for this audience' });
      return;
    }
    try {
      await call();
      checks.push({ ...item, ok: true, fix: null });
    } catch (err) {
      checks.push({ ...item, ok: false, fix, detail: failureDetail(err) });
    }
  };

  if (tenant.mode === 'admin') {
    await probe(
      { id: 'admin.fabric', title: { 'pt-BR': 'APIs de administração do Fabric (somente leitura)', en: 'Fabric read-only admin APIs' } },
      FIX_ADMIN,
      () => client.json({ family: 'fabric-admin', audience: 'fabric', url: `${client.fabric('/admin/workspaces')}?state=Active` }),
      'fabric',
    );
    await probe(
      { id: 'admin.powerbi', title: { 'pt-BR': 'APIs de administração do Power BI (somente leitura)', en: 'Power BI read-only admin APIs' } },
      FIX_ADMIN,
      () => client.json({ family: 'powerbi-admin', audience: 'powerbi', url: client.powerBi('/admin/capacities') }),
      'powerbi',
    );
  } else if (!tenant.workspaces) {
    await probe(
      { id: 'member.workspaces', title: { 'pt-BR': 'Workspaces dos quais a entidade de serviço é membro', en: 'Workspaces the service principal belongs to' } },
      FIX_NO_WORKSPACES,
      async () => {
        const page = await client.json<{ value?: unknown[] }>({ family: 'fabric', audience: 'fabric', url: client.fabric('/workspaces') });
        if (!page?.value?.length) throw new Error('the service principal is a member of no workspace');
      },
      'fabric',
    );
  }
  for (const workspaceId of tenant.workspaces ?? []) {
    await probe(
      { id: 'workspace.membership', workspaceId, title: { 'pt-BR': `Acesso ao workspace ${workspaceId}`, en: `Access to workspace ${workspaceId}` } },
      fixWorkspace(workspaceId),
      () => client.json({ family: 'fabric', audience: 'fabric', url: client.fabric(`/workspaces/${workspaceId}`) }),
      'fabric',
    );
  }
  for (const scope of tenant.cost_scopes) {
    const to = ctx.clock.now();
    const from = new Date(to.getTime() - 24 * 3600 * 1000);
    await probe(
      { id: 'cost.read', scope, title: { 'pt-BR': `Leitura de custos em ${scope}`, en: `Cost read at ${scope}` } },
      fixCost(scope),
      () =>
        client.json({
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
        }),
      'arm',
    );
  }
  checks.push(...(await utilizationChecks(client, tokens, utilizationOf(tenant.utilization), ctx.clock.now())));
  return { ok: checks.every((c) => c.ok), checks };
}
