/** Texts of the Tenant page's data freshness section, spread into i18n.ts's tables. */
export const freshnessPt = {
  fsTitle: 'Atualização dos dados de {name}',
  fsIntro: 'Uma atualização agendada que não termina dentro da tolerância abre “RefreshMissed”; dados mais velhos que a idade máxima abrem “DataStale”. A idade mais específica vale: item, depois workspace, depois tenant.',
  fsGrace: 'Tolerância após o horário agendado (minutos)',
  fsMaxAge: 'Idade máxima dos dados no tenant (minutos; vazio = sem limite)',
  fsWorkspaces: 'Idade máxima por workspace (uma linha por workspace: ID=minutos)',
  fsItems: 'Idade máxima por item — modelo semântico ou banco espelhado (uma linha por item: ID=minutos)',
  fsSave: 'Salvar atualização dos dados',
  fsReset: 'Voltar ao padrão',
  fsResetQuestion: 'Voltar ao padrão (tolerância de 30 minutos, sem idade máxima) em {name}?',
  fsSaved: 'Configuração de atualização dos dados salva.',
  fsWasReset: 'Configuração de atualização dos dados de volta ao padrão.',
  fsBadMinutes: '{field}: informe minutos inteiros, de 1 a {max}.',
  fsBadLine: '{field}, linha {line}: use ID=minutos (minutos inteiros, de 1 a {max}).',
};

export const freshnessEn: typeof freshnessPt = {
  fsTitle: 'Data freshness of {name}',
  fsIntro: 'A scheduled refresh that does not complete within the grace period opens “RefreshMissed”; data older than its maximum age opens “DataStale”. The most specific age wins: item, then workspace, then tenant.',
  fsGrace: 'Grace period after the scheduled time (minutes)',
  fsMaxAge: 'Maximum data age for the tenant (minutes; empty = no limit)',
  fsWorkspaces: 'Maximum age per workspace (one line per workspace: ID=minutes)',
  fsItems: 'Maximum age per item — semantic model or mirrored database (one line per item: ID=minutes)',
  fsSave: 'Save data freshness',
  fsReset: 'Back to defaults',
  fsResetQuestion: 'Back to the defaults (30-minute grace period, no maximum age) for {name}?',
  fsSaved: 'Data freshness settings saved.',
  fsWasReset: 'Data freshness settings back to the defaults.',
  fsBadMinutes: '{field}: enter whole minutes from 1 to {max}.',
  fsBadLine: '{field}, line {line}: use ID=minutes (whole minutes from 1 to {max}).',
};
