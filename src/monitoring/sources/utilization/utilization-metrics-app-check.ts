/**
 * The connection check's items for the Capacity Metrics app source, each with its fix in pt-BR and
 * English: the model answers executeQueries (tenant settings, workspace access, Read and Build on
 * the model, the IDs), its names are those of an app version Vigia knows, and it has usage of the
 * last half hour (the app publishes 10–15 minutes late; none in 30 minutes means every capacity is
 * paused or the app's data is stale).
 */
import { executeDax, MAPPINGS, probeMapping, timepointsQuery, type NameMapping } from './metrics-app-dax.js';
import { countDetail, errorDetail } from '../../messages/errors.js';
import type { Texts } from '../../messages/fixes.js';
import { VendorHttpError, type PlatformClient } from '../../platform/platform-client.js';
import type { MetricsAppSource } from '../../connection/utilization-settings.js';

const FIX_ACCESS: Texts = {
  'pt-BR':
    'O modelo do app Capacity Metrics recusou a consulta. No portal de administração do Fabric, ative "Dataset Execute Queries REST API" (Configurações de integração) e "Permitir que entidades de serviço usem as APIs do Power BI" (Configurações do desenvolvedor) para o grupo da entidade de serviço; dê à entidade de serviço acesso ao workspace do app e as permissões Ler e Criar (Build) no modelo semântico.',
  en: 'The Capacity Metrics app\'s model refused the query. In the Fabric admin portal, enable "Dataset Execute Queries REST API" (Integration settings) and "Allow service principals to use Power BI APIs" (Developer settings) for the service principal\'s group; give the service principal access to the app\'s workspace and Read and Build permissions on the semantic model.',
};
const FIX_IDS: Texts = {
  'pt-BR': 'Confira utilization.metricsApp: workspaceId é o workspace onde o app Capacity Metrics foi instalado e datasetId o modelo semântico "Fabric Capacity Metrics" desse workspace (os dois GUIDs aparecem na URL do modelo).',
  en: 'Check utilization.metricsApp: workspaceId is the workspace the Capacity Metrics app was installed in, and datasetId the "Fabric Capacity Metrics" semantic model in it (both GUIDs are in the model\'s URL).',
};
const FIX_VERSION: Texts = {
  'pt-BR': `O modelo não tem os nomes de nenhuma versão do app que o Vigia conhece (${MAPPINGS.map((m) => m.versions).join(', ')}): nada seria lido dele. Atualize o Vigia, ou use a fonte de eventos de capacidade (utilization.eventhouse).`,
  en: `The model has the names of no app version Vigia knows (${MAPPINGS.map((m) => m.versions).join(', ')}): nothing would be read from it. Update Vigia, or use the capacity events source (utilization.eventhouse).`,
};
const FIX_STALE: Texts = {
  'pt-BR': 'O modelo não tem uso dos últimos 30 minutos. Se alguma capacidade está ativa, abra o app Capacity Metrics e confira se os dados estão atualizados (o app mostra o uso com 10–15 minutos de atraso).',
  en: 'The model has no usage of the last 30 minutes. If a capacity is active, open the Capacity Metrics app and check that its data is current (the app shows usage 10–15 minutes late).',
};

const FRESH_MS = 30 * 60_000;

/** One check item (the shape of utilization-check.ts's items, which include these). */
export interface MetricsAppCheckItem {
  id: string;
  ok: boolean;
  title: Texts;
  fix: Texts | null;
  detail?: string;
  detailText?: Texts;
}

export async function metricsAppChecks(client: PlatformClient, app: MetricsAppSource, now: Date): Promise<MetricsAppCheckItem[]> {
  const queryTitle = { 'pt-BR': 'Consulta ao modelo do app Capacity Metrics (executeQueries)', en: 'Query of the Capacity Metrics app model (executeQueries)' };
  const versionTitle = { 'pt-BR': 'Versão do app Capacity Metrics conhecida', en: 'Capacity Metrics app version known' };
  const freshTitle = { 'pt-BR': 'Uso recente no modelo do app', en: 'Recent usage in the app model' };
  let mapping: NameMapping | null;
  try {
    mapping = await probeMapping(client, app);
  } catch (err) {
    const fix = err instanceof VendorHttpError && err.status === 404 ? FIX_IDS : FIX_ACCESS;
    return [{ id: 'utilization.metricsApp.query', ok: false, title: queryTitle, fix, ...errorDetail(err) }];
  }
  const out: MetricsAppCheckItem[] = [{ id: 'utilization.metricsApp.query', ok: true, title: queryTitle, fix: null }];
  if (!mapping) {
    out.push({ id: 'utilization.metricsApp.version', ok: false, title: versionTitle, fix: FIX_VERSION, detail: 'no known version\'s measures in the model', detailText: { en: 'no known version\'s measures in the model', 'pt-BR': 'o modelo não tem as medidas de nenhuma versão conhecida' } });
    return out;
  }
  out.push({ id: 'utilization.metricsApp.version', ok: true, title: versionTitle, fix: null, detail: mapping.versions });
  try {
    const rows = await executeDax(client, app, timepointsQuery(mapping, new Date(now.getTime() - FRESH_MS), now));
    out.push({ id: 'utilization.metricsApp.fresh', ok: rows.length > 0, title: freshTitle, fix: rows.length > 0 ? null : FIX_STALE, ...countDetail(rows.length, 'timepoint', 'timepoints', 'ponto no tempo', 'pontos no tempo') });
  } catch (err) {
    out.push({ id: 'utilization.metricsApp.fresh', ok: false, title: freshTitle, fix: FIX_VERSION, ...errorDetail(err) });
  }
  return out;
}
