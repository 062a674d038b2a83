/**
 * Small helpers shared by the four connectors: reading config, building URLs and auth headers,
 * truncating to vendor limits, and turning an HTTP answer into a ConnectorResult with a
 * secret-free reason.
 */
import type { ConnectorResult, OutboundResponse } from './types.js';

/** Cuts text to at most `max` characters (UTF-16 code units, as vendors count), marking the cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  // Never leave half of a surrogate pair at the end.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

export function str(config: Record<string, unknown>, key: string): string | undefined {
  const v = config[key];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Validates an absolute https URL without credentials, query or fragment; returns an error or null. */
export function checkHttpsUrl(value: unknown, field: string): string | null {
  if (typeof value !== 'string' || value.trim() === '') return `${field} is required`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field} must be an absolute https URL`;
  }
  if (url.protocol !== 'https:') return `${field} must be an absolute https URL`;
  if (url.username || url.password) return `${field} must not contain credentials`;
  if (url.search || url.hash) return `${field} must not contain a query or fragment`;
  return null;
}

/** The `region` (us|eu) and optional `apiBaseUrl` of the regional SaaS targets (PagerDuty, Opsgenie). */
export function checkRegionalConfig(config: Record<string, unknown>): string | null {
  const region = config.region ?? 'us';
  if (region !== 'us' && region !== 'eu') return 'config.region must be "us" or "eu"';
  return config.apiBaseUrl === undefined ? null : checkHttpsUrl(config.apiBaseUrl, 'config.apiBaseUrl');
}

export function requireString(obj: Record<string, unknown>, key: string, field: string): string | null {
  const v = obj[key];
  return typeof v === 'string' && v.trim() !== '' ? null : `${field} is required`;
}

/** Base URL without trailing slashes, so paths can be appended with a single '/'. */
export function base(url: string): string {
  return url.replace(/\/+$/, '');
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

export function header(res: OutboundResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Retry-After as milliseconds (delta-seconds or HTTP date), or undefined. */
export function retryAfterMs(res: OutboundResponse, now: number = Date.now()): number | undefined {
  const v = header(res, 'retry-after');
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

export function isHtml(res: OutboundResponse): boolean {
  const ct = header(res, 'content-type') ?? '';
  return /text\/html/i.test(ct) || /^\s*<(!doctype|html)/i.test(res.body);
}

/** `c` as a vendor may write it back: itself, percent-encoded (once or twice, any case), `+` for a space, JSON-escaped. */
function charForms(c: string): string {
  const forms = new Set<string>([c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')]);
  const pct = [...Buffer.from(c, 'utf8')].map((b) => `%(?:25)?${b.toString(16).padStart(2, '0')}`).join('');
  forms.add(pct);
  if (c === ' ') forms.add('\\+');
  if (c === '/' || c === '"' || c === '\\') forms.add(`\\\\\\${c}`);
  const code = c.codePointAt(0)!;
  if (code <= 0xffff) forms.add(`\\\\u${code.toString(16).padStart(4, '0')}`);
  return `(?:${[...forms].join('|')})`;
}

/** A credential in any of the forms charForms allows, character by character. */
function credentialPattern(value: string): RegExp {
  return new RegExp(Array.from(value).map(charForms).join(''), 'gi');
}

/** Runs of base64 (standard or URL-safe) long enough to hide a credential. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{6,}={0,2}/g;

/** Whether a base64 run decodes (at any of the 4 alignments) to text holding one of `values`. */
function hidesCredential(run: string, values: string[]): boolean {
  for (let i = 0; i < 4 && run.length - i >= 6; i++) {
    const decoded = Buffer.from(run.slice(i), 'base64').toString('latin1');
    const utf8 = Buffer.from(decoded, 'latin1').toString('utf8');
    if (values.some((v) => utf8.includes(v) || decoded.includes(v))) return true;
  }
  return false;
}

/**
 * Removes every credential from a text before it is stored or shown (vendors sometimes echo the
 * request back in an error): each value raw, percent-encoded (a URL, a query string, a form),
 * JSON-escaped, and inside any base64 run — `Authorization: Basic base64(user:password)` included,
 * whatever the user name. Defence in depth: our own texts never include credentials.
 */
export function redact(text: string, credentials: Record<string, string>): string {
  const values = Object.values(credentials).filter((v): v is string => typeof v === 'string' && v.length >= 4);
  if (values.length === 0) return text;
  let out = text.replace(BASE64_RUN, (run) => (hidesCredential(run, values) ? '[redacted]' : run));
  for (const v of values) out = out.replace(credentialPattern(v), '[redacted]');
  return out;
}

/** A short, single-line excerpt of a vendor's error body for the delivery's error text. */
export function excerpt(body: string, max = 300): string {
  return truncate(body.replace(/\s+/g, ' ').trim(), max);
}

/**
 * The shared reading of an HTTP status that was not the vendor's success answer:
 * 408/429/5xx retry (honouring Retry-After), 401/403 abandon as refused credentials, 3xx abandon
 * (redirects are not followed), any other 4xx abandon with the vendor's own explanation.
 */
export function failure(vendor: string, res: OutboundResponse, credentials: Record<string, string>, detail?: string): ConnectorResult {
  const s = res.statusCode;
  // Redacted before the excerpt is cut, so a cut never leaves the start of a credential behind.
  const what = detail ?? (isHtml(res) ? 'HTML page' : excerpt(redact(res.body, credentials)));
  const reason = redact(`${vendor} answered ${s}${what ? `: ${what}` : ''}`, credentials);
  if (s === 408 || s === 429 || s >= 500) {
    const wait = retryAfterMs(res);
    return { outcome: 'retry', statusCode: s, error: reason, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  if (s === 401 || s === 403) {
    return { outcome: 'abandon', statusCode: s, error: `${vendor} refused the credentials (${s}); check the destination's credentials and permissions` };
  }
  if (s >= 300 && s < 400) return { outcome: 'abandon', statusCode: s, error: `${vendor} answered a redirect (${s}), which is not followed` };
  return { outcome: 'abandon', statusCode: s, error: reason };
}

export function is2xx(res: OutboundResponse): boolean {
  return res.statusCode >= 200 && res.statusCode < 300;
}
