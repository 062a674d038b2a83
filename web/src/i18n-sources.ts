import type { Lang } from './i18n.js';

/**
 * Names of the monitor's source types and notification kinds in both console languages. The
 * codes stay the server's (filters, silences and the API use them); what a person reads is the
 * name in the interface language, and an unknown code (a signal from elsewhere) is shown as sent.
 */
type Names = Record<string, Record<Lang, string>>;

export const SOURCE_TYPE_NAMES: Names = {
  Capacity: { 'pt-BR': 'Capacidade', en: 'Capacity' },
  Connector: { 'pt-BR': 'Conector', en: 'Connector' },
  DataFreshness: { 'pt-BR': 'Atualidade dos dados', en: 'Data freshness' },
  Dataset: { 'pt-BR': 'Modelo semântico', en: 'Semantic model' },
  FabricJob: { 'pt-BR': 'Job do Fabric', en: 'Fabric job' },
  Gateway: { 'pt-BR': 'Gateway', en: 'Gateway' },
  Mirroring: { 'pt-BR': 'Espelhamento', en: 'Mirroring' },
  Tenant: { 'pt-BR': 'Tenant', en: 'Tenant' },
};

export const NOTIFICATION_KIND_NAMES: Names = {
  CapacityHighUtilization: { 'pt-BR': 'Capacidade com uso alto', en: 'Capacity high utilization' },
  CapacityMemoryPressure: { 'pt-BR': 'Pressão de memória na capacidade', en: 'Capacity memory pressure' },
  CapacityMetricsUnreadable: { 'pt-BR': 'Modelo do app Capacity Metrics ilegível', en: 'Capacity Metrics app model unreadable' },
  CapacityNotActive: { 'pt-BR': 'Capacidade inativa', en: 'Capacity not active' },
  CapacityOverloaded: { 'pt-BR': 'Capacidade sobrecarregada', en: 'Capacity overloaded' },
  CapacityThrottled: { 'pt-BR': 'Capacidade limitada (throttling)', en: 'Capacity throttled' },
  CapacityThrottling: { 'pt-BR': 'Capacidade com limitação', en: 'Capacity throttling' },
  CollectorBehind: { 'pt-BR': 'Coletor atrasado', en: 'Collector behind' },
  ConnectorAuthFailed: { 'pt-BR': 'Conector recusa credenciais', en: 'Connector authentication failed' },
  ConnectorSyncDelayed: { 'pt-BR': 'Sincronização do conector atrasada', en: 'Connector sync delayed' },
  ConnectorUnreachable: { 'pt-BR': 'Conector inacessível', en: 'Connector unreachable' },
  DataStale: { 'pt-BR': 'Dados desatualizados', en: 'Data stale' },
  GatewayMemberOffline: { 'pt-BR': 'Membro do gateway offline', en: 'Gateway member offline' },
  GatewayMemoryHigh: { 'pt-BR': 'Memória do gateway alta', en: 'Gateway memory high' },
  GatewayOffline: { 'pt-BR': 'Gateway offline', en: 'Gateway offline' },
  GatewayUpgradeRequired: { 'pt-BR': 'Gateway precisa de atualização', en: 'Gateway upgrade required' },
  JobFailed: { 'pt-BR': 'Job falhou', en: 'Job failed' },
  MirroringLag: { 'pt-BR': 'Atraso no espelhamento', en: 'Mirroring lag' },
  MirroringLagSevere: { 'pt-BR': 'Atraso grave no espelhamento', en: 'Severe mirroring lag' },
  MirroringStopped: { 'pt-BR': 'Espelhamento parado', en: 'Mirroring stopped' },
  MirroringTableFailed: { 'pt-BR': 'Tabela espelhada falhou', en: 'Mirrored table failed' },
  PlatformDataRejected: { 'pt-BR': 'Linhas da plataforma descartadas', en: 'Platform rows rejected' },
  RefreshFailed: { 'pt-BR': 'Atualização falhou', en: 'Refresh failed' },
  RefreshMissed: { 'pt-BR': 'Atualização agendada perdida', en: 'Scheduled refresh missed' },
  RefreshSlow: { 'pt-BR': 'Atualização lenta', en: 'Refresh slow' },
  TenantAccessDenied: { 'pt-BR': 'Tenant recusa acesso', en: 'Tenant access denied' },
  TenantAuthFailed: { 'pt-BR': 'Falha ao entrar no tenant', en: 'Tenant sign-in failed' },
  TenantConnected: { 'pt-BR': 'Tenant conectado', en: 'Tenant connected' },
  TenantThrottled: { 'pt-BR': 'Tenant limitando chamadas', en: 'Tenant throttling' },
  TenantUnreachable: { 'pt-BR': 'Tenant inacessível', en: 'Tenant unreachable' },
};

/** The source types the alerts filter offers (codes, in a stable order). */
export const KNOWN_SOURCE_TYPES = Object.keys(SOURCE_TYPE_NAMES).sort();

export const sourceTypeName = (lang: Lang, code: string): string => SOURCE_TYPE_NAMES[code]?.[lang] ?? code;
export const notificationKindName = (lang: Lang, code: string): string => NOTIFICATION_KIND_NAMES[code]?.[lang] ?? code;

/** The tenant collectors (docs/monitoring.md), by what they watch. */
export const COLLECTOR_NAMES: Names = {
  inventory: { 'pt-BR': 'Inventário', en: 'Inventory' },
  capacity: { 'pt-BR': 'Capacidades', en: 'Capacities' },
  gateway: { 'pt-BR': 'Gateways', en: 'Gateways' },
  costs: { 'pt-BR': 'Custos', en: 'Costs' },
  refreshes: { 'pt-BR': 'Atualizações', en: 'Refreshes' },
  jobs: { 'pt-BR': 'Jobs do Fabric', en: 'Fabric jobs' },
  mirroring: { 'pt-BR': 'Espelhamento', en: 'Mirroring' },
  utilization: { 'pt-BR': 'Uso das capacidades', en: 'Capacity utilization' },
  freshness: { 'pt-BR': 'Atualidade dos dados', en: 'Data freshness' },
  datasources: { 'pt-BR': 'Fontes de dados', en: 'Data sources' },
  scanner: { 'pt-BR': 'Varredura de metadados', en: 'Metadata scanning' },
  activity: { 'pt-BR': 'Log de atividades (mudanças)', en: 'Activity log (changes)' },
};
export const collectorName = (lang: Lang, code: string): string => COLLECTOR_NAMES[code]?.[lang] ?? code;
