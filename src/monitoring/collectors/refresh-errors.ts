/**
 * Readable Portuguese (pt-BR) explanations of a failed semantic-model refresh, from the
 * platform's `serviceExceptionJson` (a JSON string with `errorCode`). The codes are many and
 * undocumented as a list, so they are recognised by family (credentials, gateway, timeout,
 * memory or capacity, data source, model processing); anything else gets a generic sentence.
 * The code itself always goes with the text, so people can look it up.
 */

export interface RefreshError {
  /** The platform's code, or null when the refresh carried none. */
  code: string | null;
  /** One pt-BR sentence that says what went wrong and what to look at. */
  explanation: string;
}

interface Family {
  test: RegExp;
  explanation: string;
}

/** Codes that say the on-premises gateway could not be reached (`DM_GWPipeline_Client_GatewayUnreachable` and its family). */
const GATEWAY_FAMILY = /gateway.*(unreachable|notreachable|offline|notfound|unavailable|timeout)|GatewayUnreachable|GatewayNotReachable/i;

// Order matters: the first family whose pattern matches the code wins (a gateway code that
// mentions a data source is about the gateway).
const FAMILIES: Family[] = [
  {
    test: /credential|unauthori[sz]ed|accessdenied|logon|login|authentication|oauth|token.*expired/i,
    explanation: 'As credenciais da fonte de dados estão ausentes, inválidas ou expiraram; atualize-as nas configurações do modelo semântico.',
  },
  {
    test: GATEWAY_FAMILY,
    explanation: 'O gateway de dados local não pôde ser alcançado (offline ou sem conexão); verifique se o gateway e seus membros estão em execução.',
  },
  {
    test: /timeout|timed ?out|exceeded.*time/i,
    explanation: 'A atualização excedeu o tempo limite; reduza o volume de dados ou divida a atualização (por exemplo, atualização incremental).',
  },
  {
    test: /memory|resourcegoverning|resource.?limit|capacity.*(limit|exceeded|overload|throttl)|evicted|loadbalance/i,
    explanation: 'A atualização foi interrompida por limite de memória ou de recursos da capacidade; reduza o modelo ou aumente a capacidade.',
  },
  {
    test: /capacity.*(suspend|paus|notactive|inactive)|CapacityNotActive/i,
    explanation: 'A capacidade do workspace não está ativa (suspensa ou pausada); retome a capacidade para que as atualizações voltem a rodar.',
  },
  {
    test: /datasource|data_source|mashup|DataFormat|odbc|oledb|sqlexception|connection/i,
    explanation: 'A fonte de dados retornou um erro ou não pôde ser acessada; verifique se ela está disponível e se a consulta ainda é válida.',
  },
  {
    test: /processing|duplicate|column|conversion|calculat|partition/i,
    explanation: 'Ocorreu um erro ao processar os dados do modelo (por exemplo, valores inválidos, colunas ausentes ou duplicadas).',
  },
];

const GENERIC = 'A atualização falhou por um motivo que o Vigia não reconhece; consulte o histórico de atualizações do modelo no Power BI.';
const NO_CODE = 'A atualização falhou sem detalhes do erro; consulte o histórico de atualizações do modelo no Power BI.';

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

/** The incident's message: which model, where, what went wrong, and the platform's code. */
export function refreshFailureMessage(model: string, workspace: string | null, err: RefreshError): string {
  const where = workspace ? ` no workspace ${workspace}` : '';
  const code = err.code ? ` Código do erro: ${err.code}.` : '';
  return `A atualização do modelo semântico ${model}${where} falhou. ${err.explanation}${code}`;
}
