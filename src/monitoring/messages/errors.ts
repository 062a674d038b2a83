/**
 * The failures a collector run or a check item names, as a code and its facts (`{ code, params }`,
 * stored beside `last_error`: migration 414) and, from those, their text in Portuguese and
 * English — the one catalog both the console and the CLI read (`lastErrorText`, a check item's
 * `detailText`). Names, numbers, the platform's own codes (AADSTS…, HTTP statuses, Node's
 * socket codes) and the vendor's own words go in verbatim, in both languages: people look them up
 * as the platform wrote them. An error the catalog does not know is `other`, its message as said.
 */
import type { Texts } from '../../orgs/language.js';
import { BudgetExhaustedError } from '../platform/budget.js';
import type { ConnectionCause } from '../platform/connection-cause.js';
import { EndpointThrottledError, ThrottledError, VendorAnswerError, VendorHttpError } from '../platform/platform-client.js';
import { TokenRefusedError, TokenRequestError, TokenUnavailableError, type CredentialProblem } from '../platform/token-errors.js';
import { VendorCallError } from '../platform/transport.js';
import { both } from './titles-kit.js';

export type ErrorParams = Record<string, string | number>;
export interface ErrorCode {
  code: string;
  params: ErrorParams;
}

const REFUSALS: Record<CredentialProblem, Texts> = {
  invalid_secret: both('the client secret is wrong', 'o segredo do cliente está errado'),
  expired_secret: both('the client secret has expired', 'o segredo do cliente expirou'),
  certificate: both('the certificate is not registered for the app or its signature is not valid', 'o certificado não está registrado no aplicativo ou a assinatura não é válida'),
  application: both('the application is disabled or does not exist in the tenant', 'o aplicativo está desabilitado ou não existe no tenant'),
  tenant: both('the tenant ID does not exist', 'o ID do tenant não existe'),
  credentials: both('the credentials were refused', 'as credenciais foram recusadas'),
};

/** Where one problem has more than one AADSTS code, each its own words (token-errors.ts CREDENTIAL_CODES). */
const REFUSAL_BY_CODE: Record<string, Texts> = {
  AADSTS7000112: both('the application is disabled', 'o aplicativo está desabilitado'),
  AADSTS700016: both('no application with this client ID exists in the tenant', 'não existe aplicativo com este ID de cliente no tenant'),
  AADSTS700024: both('the certificate assertion is out of its validity time', 'a asserção do certificado está fora do período de validade'),
  AADSTS7000218: both('no client secret or certificate was sent', 'nenhum segredo do cliente ou certificado foi enviado'),
};

const CONNECTION: Record<ConnectionCause, Texts> = {
  blocked: both(
    'the destination-safety rules refuse the address (a private or loopback address not in VIGIA_DESTINATION_ALLOWLIST)',
    'as regras de segurança de destino recusam o endereço (privado ou de loopback, fora de VIGIA_DESTINATION_ALLOWLIST)',
  ),
  tls_untrusted: both("the server's TLS certificate is not signed by a trusted certificate authority", 'o certificado TLS do servidor não é assinado por uma autoridade confiável'),
  tls_hostname: both("the server's TLS certificate was issued for another host name", 'o certificado TLS do servidor foi emitido para outro nome de host'),
  tls_expired: both("the server's TLS certificate has expired or is not valid yet", 'o certificado TLS do servidor expirou ou ainda não é válido'),
  dns: both('the host name was not found (DNS)', 'o nome do host não foi encontrado (DNS)'),
  refused: both('the server refused the connection (nothing listens on that port)', 'o servidor recusou a conexão (nada escuta nessa porta)'),
  timeout: both('no answer in time', 'sem resposta a tempo'),
  reset: both('the server closed the connection', 'o servidor encerrou a conexão'),
  other: both('connection failed', 'falha na conexão'),
};

const str = (p: ErrorParams, k: string): string => String(p[k] ?? '');

/** Each code's text from its facts. */
const TEXTS: Record<string, (p: ErrorParams) => Texts> = {
  'token.refused': (p) => {
    const why = REFUSAL_BY_CODE[str(p, 'code')] ?? REFUSALS[str(p, 'problem') as CredentialProblem] ?? REFUSALS.credentials;
    return both(`the token endpoint refused the credentials: ${why.en} (${str(p, 'code')})`, `o endpoint de token recusou as credenciais: ${why['pt-BR']} (${str(p, 'code')})`);
  },
  'token.throttled': (p) => both(`the token endpoint is throttling Vigia (429); next try after ${str(p, 'seconds')} s`, `o endpoint de token está limitando o Vigia (429); nova tentativa após ${str(p, 'seconds')} s`),
  'token.unavailable': (p) =>
    both(`the token endpoint is unavailable (${str(p, 'status')}); next try after ${str(p, 'seconds')} s`, `o endpoint de token está indisponível (${str(p, 'status')}); nova tentativa após ${str(p, 'seconds')} s`),
  'token.request': (p) => both(`the token endpoint refused the request (${str(p, 'code')})`, `o endpoint de token recusou a solicitação (${str(p, 'code')})`),
  connection: (p) => {
    const cause = CONNECTION[str(p, 'cause') as ConnectionCause] ?? CONNECTION.other;
    if (str(p, 'cause') === 'other' || !CONNECTION[str(p, 'cause') as ConnectionCause]) return cause;
    const code = p.code ? ` (${str(p, 'code')})` : '';
    return both(`connection failed: ${cause.en}${code}`, `falha na conexão: ${cause['pt-BR']}${code}`);
  },
  timeout: (p) => both(`no complete answer within ${str(p, 'ms')} ms`, `nenhuma resposta completa em ${str(p, 'ms')} ms`),
  too_large: (p) => both(`the answer was larger than ${str(p, 'bytes')} bytes`, `a resposta passou de ${str(p, 'bytes')} bytes`),
  http: (p) => {
    const tail = `${p.code ? ` ${str(p, 'code')}` : ''}${p.vendor ? `: ${str(p, 'vendor')}` : ''}`;
    return both(`${str(p, 'what')} answered ${str(p, 'status')}${tail}`, `${str(p, 'what')} respondeu ${str(p, 'status')}${tail}`);
  },
  throttled: (p) => both(`${str(p, 'what')} stayed throttled (429) past the run's time limit`, `${str(p, 'what')} continuou limitado (429) além do tempo da execução`),
  endpoint_throttled: (p) =>
    both(
      `${str(p, 'what')} answered 429: the tenant's hourly cap of ${str(p, 'endpoint')} is spent; Vigia lowered its own pace there to ${str(p, 'cap')} calls an hour until ${str(p, 'until')} and did not retry`,
      `${str(p, 'what')} respondeu 429: o limite por hora do tenant em ${str(p, 'endpoint')} se esgotou; o Vigia reduziu o próprio ritmo ali a ${str(p, 'cap')} chamadas por hora até ${str(p, 'until')} e não tentou de novo`,
    ),
  budget: (p) =>
    both(
      `the hourly budget of ${str(p, 'cap')} ${str(p, 'key')} calls is spent until ${str(p, 'retryAt')}`,
      `o orçamento por hora de ${str(p, 'cap')} chamadas de ${str(p, 'key')} se esgotou até ${str(p, 'retryAt')}`,
    ),
  budget_lowered: (p) =>
    both(
      `the platform answered 429 on ${str(p, 'key')}; Vigia lowered its pace there to ${str(p, 'cap')} calls an hour until ${str(p, 'until')} and the next call fits at ${str(p, 'retryAt')}`,
      `a plataforma respondeu 429 em ${str(p, 'key')}; o Vigia reduziu o ritmo ali a ${str(p, 'cap')} chamadas por hora até ${str(p, 'until')}, e a próxima chamada cabe às ${str(p, 'retryAt')}`,
    ),
  answer: (p) => both(`the platform's answer could not be used: ${str(p, 'message')}`, `a resposta da plataforma não pôde ser usada: ${str(p, 'message')}`),
  no_workspace: () => both('the service principal is a member of no workspace', 'a entidade de serviço não é membro de nenhum workspace'),
  other: (p) => both(str(p, 'message'), str(p, 'message')),
};

/** The code and facts of a failure. */
export function errorCodeOf(err: unknown): ErrorCode {
  if (err instanceof TokenRefusedError) return { code: 'token.refused', params: { code: err.code, problem: err.problem } };
  if (err instanceof TokenUnavailableError)
    return err.status === 429 ? { code: 'token.throttled', params: { seconds: err.retryAfterSeconds } } : { code: 'token.unavailable', params: { status: err.status, seconds: err.retryAfterSeconds } };
  if (err instanceof TokenRequestError) return { code: 'token.request', params: { code: err.code } };
  if (err instanceof VendorCallError) return vendorCallCode(err);
  if (err instanceof EndpointThrottledError) {
    return { code: 'endpoint_throttled', params: { what: whatOf(err.message, / answered 429: /), endpoint: err.endpoint, cap: err.loweredCap, until: err.loweredUntil.toISOString() } };
  }
  if (err instanceof ThrottledError) return { code: 'throttled', params: { what: whatOf(err.message, / stayed throttled/) } };
  if (err instanceof VendorHttpError) {
    const what = whatOf(err.message, new RegExp(` answered ${err.status}`));
    return { code: 'http', params: { what, status: err.status, ...(err.code ? { code: err.code } : {}), ...(err.vendorText ? { vendor: err.vendorText } : {}) } };
  }
  if (err instanceof BudgetExhaustedError) {
    const key = err.endpoint ?? err.family;
    return err.loweredUntil
      ? { code: 'budget_lowered', params: { key, cap: err.cap, until: err.loweredUntil.toISOString(), retryAt: err.retryAt.toISOString() } }
      : { code: 'budget', params: { key, cap: err.cap, retryAt: err.retryAt.toISOString() } };
  }
  if (err instanceof VendorAnswerError) return { code: 'answer', params: { message: err.message } };
  if (err instanceof NoWorkspaceError) return { code: 'no_workspace', params: {} };
  return { code: 'other', params: { message: err instanceof Error ? err.message : String(err) } };
}

/** The probe of a member-mode connection without listed workspaces found none. */
export class NoWorkspaceError extends Error {
  constructor() {
    super('the service principal is a member of no workspace');
    this.name = 'NoWorkspaceError';
  }
}

function vendorCallCode(err: VendorCallError): ErrorCode {
  if (err.kind === 'too_large') return { code: 'too_large', params: { bytes: Number(/(\d+) bytes/.exec(err.message)?.[1] ?? 0) } };
  if (err.kind === 'timeout' && /within (\d+) ms/.test(err.message)) return { code: 'timeout', params: { ms: Number(/within (\d+) ms/.exec(err.message)![1]) } };
  const code = /\((\w+)\)$/.exec(err.message)?.[1];
  return { code: 'connection', params: { cause: err.connection ?? 'other', ...(code ? { code } : {}) } };
}

/** The text before the verb: the call a platform error names (`GET /v1.0/myorg/admin/capacities`). */
function whatOf(message: string, verb: RegExp): string {
  const m = verb.exec(message);
  return m ? message.slice(0, m.index) : message;
}

/** The text of a code in both languages; an unknown code says its message (or the code) as stored. */
export function errorTexts(e: ErrorCode): Texts {
  const f = TEXTS[e.code];
  return f ? f(e.params) : both(str(e.params, 'message') || e.code, str(e.params, 'message') || e.code);
}

/** Both at once: what a check item or a collector view carries. */
export function describeError(err: unknown): { error: ErrorCode; text: Texts } {
  const error = errorCodeOf(err);
  return { error, text: errorTexts(error) };
}

/** A check item's `detail` (the error's own message, as before) and `detailText` from the catalog. */
export function errorDetail(err: unknown): { detail: string; detailText: Texts } {
  return { detail: err instanceof Error ? err.message : String(err), detailText: errorTexts(errorCodeOf(err)) };
}

/** A count as a check item's detail, its noun singular or plural in each language ("1 janela", "6 janelas"). */
export function countDetail(n: number, en1: string, enN: string, pt1: string, ptN: string): { detail: string; detailText: Texts } {
  const text = both(`${n} ${n === 1 ? en1 : enN}`, `${n} ${n === 1 ? pt1 : ptN}`);
  return { detail: text.en, detailText: text };
}
