import type { Signal } from './alerts/signals.js';

/** The demo organization's monitored sources: one of each kind, with the words of its incidents (src/demo.ts tells their story). */
/** A demo incident's source: a signal without its kind, time and causes. */
export type Source = Omit<Signal, 'kind' | 'occurredAt' | 'causes' | 'restatesMessage'>;

export const SOURCES: Source[] = [
  { sourceType: 'Gateway', sourceId: 'gw-onprem-sp-01', sourceName: 'Gateway São Paulo 01', notificationKind: 'GatewayOffline', severity: 'error', title: 'Gateway offline', message: 'O gateway on-premises não responde há mais de 5 minutos.', workspaceName: null, capacityName: null },
  { sourceType: 'Gateway', sourceId: 'gw-onprem-rj-02', sourceName: 'Gateway Rio 02', notificationKind: 'GatewayMemoryHigh', severity: 'info', title: 'Memória do gateway alta', message: 'Uso de memória acima de 90% no nó principal do cluster.', workspaceName: null, capacityName: null },
  { sourceType: 'Capacity', sourceId: 'cap-prod-f64', sourceName: 'cap-prod-f64', notificationKind: 'CapacityOverloaded', severity: 'error', title: 'Capacidade sobrecarregada', message: 'Utilização de CU acima de 100% por 15 minutos; operações interativas estão sendo atrasadas.', workspaceName: null, capacityName: 'cap-prod-f64' },
  { sourceType: 'Capacity', sourceId: 'cap-bi-p1', sourceName: 'cap-bi-p1', notificationKind: 'CapacityThrottling', severity: 'error', title: 'Capacidade com limitação (throttling)', message: 'Operações em segundo plano rejeitadas por throttling.', workspaceName: null, capacityName: 'cap-bi-p1' },
  { sourceType: 'Dataset', sourceId: 'ds-vendas-diarias', sourceName: 'Vendas Diárias', notificationKind: 'RefreshFailed', severity: 'error', title: 'Atualização do modelo semântico falhou', message: 'A atualização agendada falhou: tempo limite excedido ao consultar a origem SQL.', workspaceName: 'Vendas', capacityName: 'cap-prod-f64' },
  { sourceType: 'Dataset', sourceId: 'ds-dre-mensal', sourceName: 'DRE Mensal', notificationKind: 'RefreshFailed', severity: 'error', title: 'Atualização do modelo semântico falhou', message: 'Credenciais da fonte de dados expiradas.', workspaceName: 'Financeiro', capacityName: 'cap-prod-f64' },
  { sourceType: 'FabricJob', sourceId: 'job-etl-estoque', sourceName: 'ETL Estoque (notebook)', notificationKind: 'JobFailed', severity: 'error', title: 'Job do Fabric falhou', message: 'O notebook terminou com erro: Spark session timeout.', workspaceName: 'Supply Chain', capacityName: 'cap-bi-p1' },
  { sourceType: 'Mirroring', sourceId: 'mir-erp-oracle', sourceName: 'Espelhamento ERP Oracle', notificationKind: 'MirroringStopped', severity: 'error', title: 'Espelhamento parado', message: 'A replicação parou: a tabela de origem mudou de esquema.', workspaceName: 'Supply Chain', capacityName: 'cap-bi-p1' },
  { sourceType: 'DataFreshness', sourceId: 'fresh-vendas-lakehouse', sourceName: 'Lakehouse Vendas', notificationKind: 'DataStale', severity: 'info', title: 'Dados desatualizados', message: 'Os dados não são atualizados há mais de 6 horas.', workspaceName: 'Vendas', capacityName: 'cap-prod-f64' },
  { sourceType: 'Connector', sourceId: 'conn-salesforce', sourceName: 'Conector Salesforce', notificationKind: 'ConnectorAuthFailed', severity: 'error', title: 'Conector recusa as credenciais', message: 'O token OAuth do conector foi revogado.', workspaceName: 'Vendas', capacityName: null },
];
