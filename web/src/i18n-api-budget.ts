/** Texts of the tenant's calls-per-hour table and share-of-caps form, spread into i18n.ts's tables. */
export const apiBudgetPt = {
  abTitle: 'Chamadas por hora contra cada limite: {name}',
  abKey: 'Família ou endpoint',
  abCalls: 'Chamadas na última hora',
  abCap: 'Limite do Vigia',
  abDocumented: 'Limite documentado do tenant',
  abLowered: 'Reduzido após 429 até',
  abOwn: 'teto próprio',
  abShareTitle: 'Parcela do Vigia nos limites do tenant',
  abShareHelp: 'Percentual de cada limite por tenant documentado pela plataforma (APIs de administração) que o Vigia usa; o resto fica para as outras ferramentas do cliente. Padrão 50.',
  abShare: 'Parcela (%)',
  abShareSave: 'Salvar parcela',
  abShareSaved: 'Parcela de {name} salva.',
  abShareWhole: 'A parcela deve ser um número inteiro de 1 a 100.',
};

export const apiBudgetEn: typeof apiBudgetPt = {
  abTitle: 'Calls per hour against each cap: {name}',
  abKey: 'Family or endpoint',
  abCalls: 'Calls in the last hour',
  abCap: "Vigia's cap",
  abDocumented: 'Documented tenant cap',
  abLowered: 'Lowered after a 429 until',
  abOwn: 'own ceiling',
  abShareTitle: "Vigia's share of the tenant's caps",
  abShareHelp: "Percent of each per-tenant cap the platform documents (admin APIs) that Vigia uses; the rest is left to the customer's other tools. Default 50.",
  abShare: 'Share (%)',
  abShareSave: 'Save share',
  abShareSaved: 'Share of {name} saved.',
  abShareWhole: 'The share must be a whole number from 1 to 100.',
};
