/**
 * The one sentence an incident with a likely change says, in Portuguese and English: "A
 * atualização falhou 12 min depois que as credenciais da fonte foram alteradas". It names the
 * activity and the time, never the actor (it may leave the service in a payload).
 */
import type { Texts } from '../../orgs/language.js';

type Pair = readonly [pt: string, en: string];

/** What happened, by the incident's source type. */
const INCIDENT: Record<string, Pair> = {
  Dataset: ['A atualização falhou', 'The refresh failed'],
  FabricJob: ['O job falhou', 'The job failed'],
  Mirroring: ['O espelhamento parou', 'Mirroring stopped'],
  DataFreshness: ['Os dados ficaram desatualizados', 'The data went stale'],
  Gateway: ['O problema no gateway começou', 'The gateway problem began'],
  Capacity: ['O problema na capacidade começou', 'The capacity problem began'],
  Connector: ['A conexão falhou', 'The connection failed'],
  Tenant: ['O acesso ao tenant falhou', 'Access to the tenant failed'],
};
const INCIDENT_OTHER: Pair = ['O incidente começou', 'The incident began'];

/** What changed, by activity (the activity log's operation names, vendor README §3). */
const CHANGE: [RegExp, Pair][] = [
  [/^(UpdateDatasourceCredentials|UpdateGatewayClusterDatasourceCredentials)$/i, ['as credenciais da fonte foram alteradas', 'the data source credentials were changed']],
  [/Schedule|ScheduledRefresh/i, ['o agendamento de atualização foi alterado', 'the refresh schedule was changed']],
  [/Parameters/i, ['os parâmetros foram alterados', 'the parameters were changed']],
  [/^(UpdateDatasources|UpdateDatasource|SetAllConnections|BindMonikersToDatasources)$/i, ['as fontes de dados foram alteradas', 'the data sources were changed']],
  [/^BindToGateway$/i, ['o modelo foi vinculado a um gateway', 'the model was bound to a gateway']],
  [/^(RemoveDatasourceFromGateway|DeleteGatewayClusterDatasource)$/i, ['a fonte foi removida do gateway', 'the data source was removed from the gateway']],
  [/^DeleteGateway/i, ['o gateway foi excluído', 'the gateway was deleted']],
  [/Gateway/i, ['o gateway foi alterado', 'the gateway was changed']],
  [/^(TakeOverDataset|TakeOverDatasource|TookOverDataflow)$/i, ['alguém assumiu o item', 'someone took the item over']],
  [/^ChangeCapacityState$/i, ['o estado da capacidade foi alterado', "the capacity's state was changed"]],
  [/WorkspaceCapacity|WorkspaceIntoCapacity|WorkspacesFromCapacity/i, ['o workspace mudou de capacidade', 'the workspace was moved to another capacity']],
  [/Capacity/i, ['a capacidade foi alterada', 'the capacity was changed']],
  [/^UpdatedAdminFeatureSwitch$/i, ['uma configuração do tenant foi alterada', 'a tenant setting was changed']],
  [/Workspace(Access|Role)|GroupMembers/i, ['o acesso ao workspace foi alterado', 'the workspace access was changed']],
  [/^(Delete|Drop)/i, ['um item foi excluído', 'an item was deleted']],
  [/Deploy|Git$|FromGit|Import|Republish/i, ['o conteúdo foi substituído (publicação ou implantação)', 'the content was replaced (publish or deployment)']],
];

/** "12 min", "2 h", "3 h 5 min". */
export function spanText(minutes: number): string {
  const m = Math.max(0, Math.round(minutes));
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

export function changePhrase(activity: string): Texts {
  const hit = CHANGE.find(([re]) => re.test(activity))?.[1];
  return hit ? { 'pt-BR': hit[0], en: hit[1] } : { 'pt-BR': `a atividade "${activity}" foi registrada`, en: `"${activity}" was logged` };
}

/** The sentence for an incident of `sourceType` that opened `minutes` after a change of `activity`. */
export function likelyChangeSentence(sourceType: string, activity: string, minutes: number): Texts {
  const [pt, en] = INCIDENT[sourceType] ?? INCIDENT_OTHER;
  const what = changePhrase(activity);
  const span = spanText(minutes);
  return { 'pt-BR': `${pt} ${span} depois que ${what['pt-BR']}`, en: `${en} ${span} after ${what.en}` };
}
