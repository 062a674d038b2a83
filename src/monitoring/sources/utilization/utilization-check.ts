/**
 * The connection check's items for the `utilization` sources, each with its fix in pt-BR and
 * English: a token of the Kusto audience, a read of the Eventhouse table (database, table,
 * permission), and whether capacity events are flowing into it (a Summary per active capacity
 * every 30 s — none in the last 10 minutes means the Eventstream is not delivering). For the
 * Azure Monitor source: an ARM token, the Embedded capacity listing of each scope (ARM read on
 * the scope), at least one A/EM SKU found, and one metrics read (Microsoft.Insights/metrics/read).
 * The Capacity Metrics app's items are in utilization-metrics-app-check.ts.
 */
import { VendorHttpError, type PlatformClient } from '../../platform/platform-client.js';
import type { TenantTokens } from '../../platform/tokens.js';
import { readNewEvents } from './utilization-events.js';
import { embeddedListPaths, isPaused, listEmbeddedCapacities, readMinutes } from './utilization-azure-monitor.js';
import { CallBudget } from '../../platform/run-budget.js';
import type { UtilizationSettings } from '../../connection/utilization-settings.js';
import { countDetail, errorDetail } from '../../messages/errors.js';
import type { Texts } from '../../messages/fixes.js';
import { metricsAppChecks } from './utilization-metrics-app-check.js';


export interface UtilizationCheckItem {
  id: string;
  ok: boolean;
  audience?: 'kusto' | 'arm';
  title: Texts;
  fix: Texts | null;
  detail?: string;
  detailText?: Texts;
}

const FIX_TOKEN: Texts = {
  'pt-BR': 'O Microsoft Entra ID não emitiu um token para o Eventhouse (Kusto) com estas credenciais: confira o segredo ou certificado da conexão.',
  en: 'Microsoft Entra ID issued no token for the Eventhouse (Kusto) with these credentials: check the connection\'s secret or certificate.',
};
const FIX_FORBIDDEN: Texts = {
  'pt-BR': 'Dê à entidade de serviço acesso de leitura ao banco KQL: a função Visualizador no workspace do Eventhouse, ou ".add database <banco> viewers (\'aadapp=<id do aplicativo>;<id do tenant>\')" no banco.',
  en: 'Give the service principal read access to the KQL database: the Viewer role on the Eventhouse\'s workspace, or ".add database <db> viewers (\'aadapp=<application id>;<tenant id>\')" on the database.',
};
const FIX_NAMES: Texts = {
  'pt-BR': 'Confira o URI de consulta (queryServiceUri do Eventhouse), o nome do banco KQL e o da tabela: a tabela deve receber os eventos de capacidade como chegam do Eventstream (colunas type e data).',
  en: 'Check the query URI (the Eventhouse\'s queryServiceUri), the KQL database name and the table name: the table must receive the capacity events as the Eventstream delivers them (columns type and data).',
};
const FIX_FLOW: Texts = {
  'pt-BR': 'Nenhum evento de capacidade chegou nos últimos 10 minutos. No Real-Time hub (Eventos do Fabric → Status), confira se a assinatura de eventos de capacidade do Eventstream está ativa; seu dono precisa ser administrador da capacidade. Veja docs/monitoring.md, "Capacity load".',
  en: 'No capacity event arrived in the last 10 minutes. In Real-Time hub (Fabric events → Status), check that the Eventstream\'s capacity-events subscription is active; its owner must be a capacity admin. See docs/monitoring.md, "Capacity load".',
};

const FIX_ARM_TOKEN: Texts = {
  'pt-BR': 'O Microsoft Entra ID não emitiu um token para o Azure Resource Manager com estas credenciais: confira o segredo ou certificado da conexão.',
  en: 'Microsoft Entra ID issued no token for Azure Resource Manager with these credentials: check the connection\'s secret or certificate.',
};
const FIX_ARM_READER: Texts = {
  'pt-BR':
    'Dê à entidade de serviço a função Leitor de Monitoramento (Monitoring Reader) — ou Leitor (Reader) — em cada escopo de utilization.armScopes (assinatura ou grupo de recursos), no portal do Azure: Controle de acesso (IAM) → Adicionar atribuição de função. Ela permite listar as capacidades do Power BI Embedded e ler suas métricas; não dá acesso a dados.',
  en: 'Give the service principal the Monitoring Reader role — or Reader — on each scope in utilization.armScopes (subscription or resource group), in the Azure portal: Access control (IAM) → Add role assignment. It lets Vigia list the Power BI Embedded capacities and read their metrics; it grants no access to data.',
};
const FIX_ARM_SCOPE: Texts = {
  'pt-BR': 'O escopo não existe ou não é visível para a entidade de serviço: confira o ID da assinatura e o nome do grupo de recursos em utilization.armScopes.',
  en: 'The scope does not exist or is not visible to the service principal: check the subscription ID and resource group name in utilization.armScopes.',
};
const FIX_NO_EMBEDDED: Texts = {
  'pt-BR':
    'Nenhuma capacidade do Power BI Embedded (SKU A ou EM, Microsoft.PowerBIDedicated/capacities) nestes escopos. Capacidades Fabric (SKU F) não têm métricas no Azure Monitor: para elas use a fonte de eventos de capacidade (Eventhouse). Veja docs/monitoring.md, "Capacity load".',
  en: 'No Power BI Embedded capacity (A or EM SKU, Microsoft.PowerBIDedicated/capacities) under these scopes. Fabric capacities (F SKUs) have no Azure Monitor metrics: use the capacity events source (Eventhouse) for them. See docs/monitoring.md, "Capacity load".',
};

const FLOW_LOOKBACK_MS = 10 * 60_000;

async function azureMonitorChecks(client: PlatformClient, tokens: Pick<TenantTokens, 'get'>, scopes: string[], now: Date): Promise<UtilizationCheckItem[]> {
  const out: UtilizationCheckItem[] = [];
  const tokenTitle = { 'pt-BR': 'Token para o Azure Resource Manager (métricas do Azure Monitor)', en: 'Token for Azure Resource Manager (Azure Monitor metrics)' };
  try {
    await tokens.get('arm');
    out.push({ id: 'utilization.azureMonitor.token', ok: true, audience: 'arm', title: tokenTitle, fix: null });
  } catch (err) {
    out.push({ id: 'utilization.azureMonitor.token', ok: false, audience: 'arm', title: tokenTitle, fix: FIX_ARM_TOKEN, ...errorDetail(err) });
    return out;
  }
  const listTitle = { 'pt-BR': `Capacidades do Power BI Embedded em ${scopes.join(', ')}`, en: `Power BI Embedded capacities under ${scopes.join(', ')}` };
  let capacities: Awaited<ReturnType<typeof listEmbeddedCapacities>>;
  try {
    capacities = await listEmbeddedCapacities(client, scopes, new CallBudget(embeddedListPaths(scopes).length * 10));
  } catch (err) {
    const status = err instanceof VendorHttpError ? err.status : 0;
    out.push({ id: 'utilization.azureMonitor.list', ok: false, title: listTitle, fix: status === 404 ? FIX_ARM_SCOPE : FIX_ARM_READER, ...errorDetail(err) });
    return out;
  }
  out.push({ id: 'utilization.azureMonitor.list', ok: capacities.length > 0, title: listTitle, fix: capacities.length > 0 ? null : FIX_NO_EMBEDDED, ...countDetail(capacities.length, 'capacity', 'capacities', 'capacidade', 'capacidades') });
  const probe = capacities.find((c) => !isPaused(c.state));
  if (!probe) return out;
  const metricsTitle = { 'pt-BR': `Métricas do Azure Monitor de ${probe.name}`, en: `Azure Monitor metrics of ${probe.name}` };
  const end = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  try {
    await readMinutes(client, probe.id, new Date(end.getTime() - FLOW_LOOKBACK_MS), end);
    out.push({ id: 'utilization.azureMonitor.metrics', ok: true, title: metricsTitle, fix: null });
  } catch (err) {
    out.push({ id: 'utilization.azureMonitor.metrics', ok: false, title: metricsTitle, fix: FIX_ARM_READER, ...errorDetail(err) });
  }
  return out;
}

export async function utilizationChecks(client: PlatformClient, tokens: Pick<TenantTokens, 'get'>, s: UtilizationSettings, now: Date): Promise<UtilizationCheckItem[]> {
  const out: UtilizationCheckItem[] = [];
  const e = s.eventhouse;
  if (e) {
    const tokenTitle = { 'pt-BR': 'Token para o Eventhouse (Kusto)', en: 'Token for the Eventhouse (Kusto)' };
    let token = true;
    try {
      await tokens.get('kusto');
      out.push({ id: 'utilization.eventhouse.token', ok: true, audience: 'kusto', title: tokenTitle, fix: null });
    } catch (err) {
      token = false;
      out.push({ id: 'utilization.eventhouse.token', ok: false, audience: 'kusto', title: tokenTitle, fix: FIX_TOKEN, ...errorDetail(err) });
    }
    const readTitle = { 'pt-BR': `Leitura da tabela ${e.table} em ${e.database}`, en: `Read of table ${e.table} in ${e.database}` };
    const flowTitle = { 'pt-BR': 'Eventos de capacidade chegando', en: 'Capacity events arriving' };
    if (!token) {
      out.push({ id: 'utilization.eventhouse.read', ok: false, title: readTitle, fix: FIX_TOKEN, detail: 'no token for the Kusto audience', detailText: { en: 'no token for the Kusto audience', 'pt-BR': 'sem token para a audiência do Kusto' } });
      return out;
    }
    try {
      const batch = await readNewEvents(client, e, { through: new Date(now.getTime() - FLOW_LOOKBACK_MS).toISOString() }, now);
      out.push({ id: 'utilization.eventhouse.read', ok: true, title: readTitle, fix: null });
      const flowing = batch.windows.length > 0 || batch.states.length > 0;
      out.push({ id: 'utilization.eventhouse.flowing', ok: flowing, title: flowTitle, fix: flowing ? null : FIX_FLOW, ...(flowing ? countDetail(batch.windows.length, 'window', 'windows', 'janela', 'janelas') : {}) });
    } catch (err) {
      const fix = err instanceof VendorHttpError && (err.status === 401 || err.status === 403) ? FIX_FORBIDDEN : FIX_NAMES;
      out.push({ id: 'utilization.eventhouse.read', ok: false, title: readTitle, fix, ...errorDetail(err) });
    }
  }
  if (s.metricsApp) out.push(...(await metricsAppChecks(client, s.metricsApp, now)));
  if (s.armScopes.length > 0) out.push(...(await azureMonitorChecks(client, tokens, s.armScopes, now)));
  return out;
}
