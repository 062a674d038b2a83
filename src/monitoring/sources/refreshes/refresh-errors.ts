/**
 * Readable explanations, in Portuguese and English, of a failed semantic-model refresh, from the
 * platform's `serviceExceptionJson` (a JSON string with `errorCode`). The codes are many and
 * undocumented as a list, so they are recognised by family (credentials, gateway, timeout,
 * memory or capacity, data source, model processing); anything else gets a generic sentence.
 * The code itself always goes with the text, so people can look it up.
 */

import type { Texts } from '../../messages/fixes.js';

export interface RefreshError {
  /** The platform's code, or null when the refresh carried none. */
  code: string | null;
  /** One sentence that says what went wrong and what to look at, in each language. */
  explanation: Texts;
}

interface Family {
  test: RegExp;
  explanation: Texts;
}

/** Codes that say the on-premises gateway could not be reached (`DM_GWPipeline_Client_GatewayUnreachable` and its family). */
const GATEWAY_FAMILY = /gateway.*(unreachable|notreachable|offline|notfound|unavailable|timeout)|GatewayUnreachable|GatewayNotReachable/i;

// Order matters: the first family whose pattern matches the code wins (a gateway code that
// mentions a data source is about the gateway).
const FAMILIES: Family[] = [
  {
    test: /credential|unauthori[sz]ed|accessdenied|logon|login|authentication|oauth|token.*expired/i,
    explanation: {
      'pt-BR': 'As credenciais da fonte de dados estão ausentes, inválidas ou expiraram; atualize-as nas configurações do modelo semântico.',
      en: "The data source's credentials are missing, invalid or expired; update them in the semantic model's settings.",
    },
  },
  {
    test: GATEWAY_FAMILY,
    explanation: {
      'pt-BR': 'O gateway de dados local não pôde ser alcançado (offline ou sem conexão); verifique se o gateway e seus membros estão em execução.',
      en: 'The on-premises data gateway could not be reached (offline or disconnected); check that the gateway and its members are running.',
    },
  },
  {
    test: /timeout|timed ?out|exceeded.*time/i,
    explanation: {
      'pt-BR': 'A atualização excedeu o tempo limite; reduza o volume de dados ou divida a atualização (por exemplo, atualização incremental).',
      en: 'The refresh exceeded its time limit; reduce the data volume or split the refresh (for example, incremental refresh).',
    },
  },
  {
    test: /memory|resourcegoverning|resource.?limit|capacity.*(limit|exceeded|overload|throttl)|evicted|loadbalance/i,
    explanation: {
      'pt-BR': 'A atualização foi interrompida por limite de memória ou de recursos da capacidade; reduza o modelo ou aumente a capacidade.',
      en: "The refresh was stopped by the capacity's memory or resource limit; make the model smaller or the capacity larger.",
    },
  },
  {
    test: /capacity.*(suspend|paus|notactive|inactive)|CapacityNotActive/i,
    explanation: {
      'pt-BR': 'A capacidade do workspace não está ativa (suspensa ou pausada); retome a capacidade para que as atualizações voltem a rodar.',
      en: "The workspace's capacity is not active (suspended or paused); resume it so refreshes run again.",
    },
  },
  {
    test: /datasource|data_source|mashup|DataFormat|odbc|oledb|sqlexception|connection/i,
    explanation: {
      'pt-BR': 'A fonte de dados retornou um erro ou não pôde ser acessada; verifique se ela está disponível e se a consulta ainda é válida.',
      en: 'The data source answered an error or could not be reached; check that it is available and that the query is still valid.',
    },
  },
  {
    test: /processing|duplicate|column|conversion|calculat|partition/i,
    explanation: {
      'pt-BR': 'Ocorreu um erro ao processar os dados do modelo (por exemplo, valores inválidos, colunas ausentes ou duplicadas).',
      en: "Processing the model's data failed (for example, invalid values, missing or duplicate columns).",
    },
  },
];

const GENERIC: Texts = {
  'pt-BR': 'A atualização falhou por um motivo que o Vigia não reconhece; consulte o histórico de atualizações do modelo no Power BI.',
  en: "The refresh failed for a reason Vigia does not recognise; see the model's refresh history in Power BI.",
};
const NO_CODE: Texts = {
  'pt-BR': 'A atualização falhou sem detalhes do erro; consulte o histórico de atualizações do modelo no Power BI.',
  en: "The refresh failed without error details; see the model's refresh history in Power BI.",
};

/** The error code in a `serviceExceptionJson`, or null (absent, not JSON, no code). */
export function errorCodeOf(serviceExceptionJson: string | undefined | null): string | null {
  if (!serviceExceptionJson) return null;
  try {
    const parsed = JSON.parse(serviceExceptionJson) as { errorCode?: unknown; error?: { code?: unknown } };
    const code = parsed?.errorCode ?? parsed?.error?.code;
    // Only the code's own characters: it is put into a message people read.
    return typeof code === 'string' && code.trim() ? code.replace(/[^\w.:-]/g, '').slice(0, 120) || null : null;
  } catch {
    return null;
  }
}

/** Whether a failure's code is of the gateway family (the first family it matches, as for its explanation). */
export function isGatewayErrorCode(code: string | null): boolean {
  return code !== null && FAMILIES.find((f) => f.test.test(code))?.test === GATEWAY_FAMILY;
}

export function explainRefreshError(serviceExceptionJson: string | undefined | null): RefreshError {
  const code = errorCodeOf(serviceExceptionJson);
  if (code === null) return { code, explanation: NO_CODE };
  const family = FAMILIES.find((f) => f.test.test(code));
  return { code, explanation: family?.explanation ?? GENERIC };
}

/** The incident's message: which model, where, what went wrong, and the platform's code (verbatim in both). */
export function refreshFailureMessage(model: string, workspace: string | null, err: RefreshError): Texts {
  return {
    'pt-BR': `A atualização do modelo semântico ${model}${workspace ? ` no workspace ${workspace}` : ''} falhou. ${err.explanation['pt-BR']}${err.code ? ` Código do erro: ${err.code}.` : ''}`,
    en: `The refresh of semantic model ${model}${workspace ? ` in workspace ${workspace}` : ''} failed. ${err.explanation.en}${err.code ? ` Error code: ${err.code}.` : ''}`,
  };
}
