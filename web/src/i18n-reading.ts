/**
 * Texts of the pages a person reads first (issue 39, items 3 and 5): the Tenant page's "monitor
 * problems first" summary and its disclosures, the copy buttons of ids, the workspace picker, the
 * empty cards, and the folded "found at connection" alerts. Spread into i18n.ts's tables.
 */
export const readingPt = {
  thCollectorsOk: 'Todos os {n} coletores ativos funcionam.',
  thCollectorsWaiting: 'Nenhum coletor falhou; {n} ainda não rodaram.',
  thFailingTitle: 'Coletores com falha',
  thFailing: '{collector} não consegue ler o tenant: {error}',
  thFailingSince: 'Última leitura bem-sucedida: {at}.',
  thFailingNever: 'Nunca leu com sucesso.',
  thDetails: 'Coletores, cota de chamadas e rodízio',
  thSettings: 'Configurações: cota, espelhamento, utilização e atualização dos dados',
  copyId: 'Copiar o ID de {name}',
  wsId: 'ID',
  ulPickWorkspace: 'Escolher o workspace',
  ulPickNone: 'Digitar o ID',
  noData: 'sem dados',
  foldFoundAtConnection: '{n} alertas silenciados “encontrado na conexão”',
};

export const readingEn: typeof readingPt = {
  thCollectorsOk: 'All {n} enabled collectors work.',
  thCollectorsWaiting: 'No collector failed; {n} have not run yet.',
  thFailingTitle: 'Failing collectors',
  thFailing: '{collector} cannot read the tenant: {error}',
  thFailingSince: 'Last successful read: {at}.',
  thFailingNever: 'Never read successfully.',
  thDetails: 'Collectors, call budget and rotation',
  thSettings: 'Settings: budget share, mirroring, utilization and data freshness',
  copyId: 'Copy the ID of {name}',
  wsId: 'ID',
  ulPickWorkspace: 'Choose the workspace',
  ulPickNone: 'Type the ID',
  noData: 'no data',
  foldFoundAtConnection: '{n} silenced “found at connection” alerts',
};
