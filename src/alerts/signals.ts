/**
 * Signal input (docs/admin-api.md, "Signals") and its validation. Validation is hand-written rather
 * than a route schema so that the demo and other callers of ingestSignals get the same checks,
 * and so a batch error names the offending item ("signals[3].severity …").
 */
import { invalidInput } from '../errors.js';
import { DATE_RANGE_TEXT, isInRange, isTooFarAhead, MAX_FUTURE_SKEW_MS } from '../date-rule.js';
import { findUnstorableText, parseIsoDateTime, unstorableTextMessage } from '../orgs/validation.js';
import type { Language, Texts } from '../orgs/language.js';

export interface SignalCause {
  sourceType: string;
  sourceId: string;
}

export interface SignalInput {
  sourceType: string;
  sourceId: string;
  sourceName: string;
  kind: 'failure' | 'recovery';
  notificationKind: string;
  severity?: 'error' | 'info';
  /**
   * Text, or the same text in every language (Vigia's own collectors): inLanguage() keeps the
   * organization's before validation. The API's signals are text only.
   */
  title: string | Texts;
  message: string | Texts;
  workspaceName?: string | null;
  capacityName?: string | null;
  /** ISO 8601 text or a Date; default: now from the clock. */
  occurredAt?: string | Date;
  causes?: SignalCause[];
  /**
   * Vigia's own signals only (never accepted from the API): a failure that reoccurs on an open
   * incident replaces its message — the monitor's self-watch restating the failure's new cause.
   */
  restatesMessage?: boolean;
}

/** A validated signal with defaults applied. */
export interface Signal {
  sourceType: string;
  sourceId: string;
  sourceName: string;
  kind: 'failure' | 'recovery';
  notificationKind: string;
  severity: 'error' | 'info';
  title: string;
  message: string;
  workspaceName: string | null;
  capacityName: string | null;
  occurredAt: Date;
  causes: SignalCause[];
  /** See SignalInput.restatesMessage: set by Vigia's own callers after validation, never by the API. */
  restatesMessage?: boolean;
}

export const MAX_BATCH = 1000;
export const MAX_MESSAGE_CHARS = 1000;
const MAX_CAUSES = 20;

const FIELDS = new Set([
  'sourceType', 'sourceId', 'sourceName', 'kind', 'notificationKind', 'severity', 'title', 'message',
  'workspaceName', 'capacityName', 'occurredAt', 'causes',
]);

const MAX_TITLE_CHARS = 500;

/** Whether any signal carries a text in every language (then its organization's language is needed). */
export function hasTexts(inputs: SignalInput[]): boolean {
  return inputs.some((s) => typeof s.title !== 'string' || typeof s.message !== 'string');
}

/** At most MAX_TITLE_CHARS UTF-16 units (the validation's measure), never half a surrogate pair. */
function cutTitle(t: string): string {
  if (t.length <= MAX_TITLE_CHARS) return t;
  let out = '';
  for (const ch of t) {
    if (out.length + ch.length > MAX_TITLE_CHARS) break;
    out += ch;
  }
  return out;
}

/**
 * The signal in one language: a text given in every language becomes the organization's; a
 * plain text stays as it is. A title is cut to its limit here (a name can be long, and a
 * translation is longer than what the collector measured), never rejected.
 */
export function inLanguage(s: SignalInput, language: Language): SignalInput & { title: string; message: string } {
  const pick = (t: string | Texts): string => (typeof t === 'string' ? t : t[language]);
  const title = typeof s.title === 'string' ? s.title : cutTitle(pick(s.title));
  return { ...s, title, message: pick(s.message) };
}

/** Truncates to 1000 characters (code points, so a surrogate pair is never cut in half). */
export function truncateMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_CHARS) return message;
  const chars = Array.from(message);
  return chars.length <= MAX_MESSAGE_CHARS ? message : chars.slice(0, MAX_MESSAGE_CHARS).join('');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(obj: Record<string, unknown>, field: string, where: string, max: number, required: boolean): string | undefined {
  const v = obj[field];
  if (v === undefined) {
    if (required) throw invalidInput(`${where}: "${field}" is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw invalidInput(`${where}.${field} must be a string`);
  if (v.trim().length === 0) throw invalidInput(`${where}.${field} must not be empty`);
  if (v.length > max) throw invalidInput(`${where}.${field} must be at most ${max} characters`);
  return v;
}

function nullableText(obj: Record<string, unknown>, field: string, where: string, max: number): string | null {
  const v = obj[field];
  if (v === undefined || v === null) return null;
  return text(obj, field, where, max, true)!;
}

export function validateSignal(raw: unknown, where: string, now: Date): Signal {
  if (!isObject(raw)) throw invalidInput(`${where} must be an object`);
  const unstorable = findUnstorableText(raw, where);
  if (unstorable) throw invalidInput(unstorableTextMessage(unstorable));
  for (const key of Object.keys(raw)) {
    if (!FIELDS.has(key)) throw invalidInput(`${where}: unknown field "${key}"`);
  }
  const kind = raw.kind;
  if (kind !== 'failure' && kind !== 'recovery') {
    throw invalidInput(kind === undefined ? `${where}: "kind" is required` : `${where}.kind must be "failure" or "recovery"`);
  }
  const severity = raw.severity ?? 'error';
  if (severity !== 'error' && severity !== 'info') throw invalidInput(`${where}.severity must be "error" or "info"`);
  const message = raw.message;
  if (message === undefined) throw invalidInput(`${where}: "message" is required`);
  if (typeof message !== 'string') throw invalidInput(`${where}.message must be a string`);

  let occurredAt = now;
  if (raw.occurredAt !== undefined) {
    if (raw.occurredAt instanceof Date) {
      if (!isInRange(raw.occurredAt)) throw invalidInput(`${where}.occurredAt must be a date-time ${DATE_RANGE_TEXT}`);
      occurredAt = raw.occurredAt;
    } else if (typeof raw.occurredAt === 'string') occurredAt = parseIsoDateTime(raw.occurredAt, `${where}.occurredAt`);
    else throw invalidInput(`${where}.occurredAt must be an ISO 8601 date-time string`);
    if (isTooFarAhead(occurredAt, now)) {
      throw invalidInput(`${where}.occurredAt must not be more than ${MAX_FUTURE_SKEW_MS / 60_000} minutes ahead of the server's clock`);
    }
  }

  const causes: SignalCause[] = [];
  if (raw.causes !== undefined) {
    if (!Array.isArray(raw.causes)) throw invalidInput(`${where}.causes must be an array`);
    if (raw.causes.length > MAX_CAUSES) throw invalidInput(`${where}.causes must have at most ${MAX_CAUSES} items`);
    raw.causes.forEach((c, i) => {
      const w = `${where}.causes[${i}]`;
      if (!isObject(c)) throw invalidInput(`${w} must be an object`);
      for (const key of Object.keys(c)) {
        if (key !== 'sourceType' && key !== 'sourceId') throw invalidInput(`${w}: unknown field "${key}"`);
      }
      causes.push({ sourceType: text(c, 'sourceType', w, 100, true)!, sourceId: text(c, 'sourceId', w, 500, true)! });
    });
  }

  return {
    sourceType: text(raw, 'sourceType', where, 100, true)!,
    sourceId: text(raw, 'sourceId', where, 500, true)!,
    sourceName: text(raw, 'sourceName', where, 500, true)!,
    kind,
    notificationKind: text(raw, 'notificationKind', where, 200, true)!,
    severity,
    title: text(raw, 'title', where, 500, true)!,
    message: truncateMessage(message),
    workspaceName: nullableText(raw, 'workspaceName', where, 500),
    capacityName: nullableText(raw, 'capacityName', where, 500),
    occurredAt,
    causes,
  };
}

/** One signal object or an array of 1..1000; everything is checked before anything is written. */
export function validateSignals(body: unknown, now: Date): { signals: Signal[]; single: boolean } {
  if (Array.isArray(body)) {
    if (body.length === 0) throw invalidInput('signals: the array must not be empty');
    if (body.length > MAX_BATCH) throw invalidInput(`signals: at most ${MAX_BATCH} signals per request`);
    return { signals: body.map((s, i) => validateSignal(s, `signals[${i}]`, now)), single: false };
  }
  return { signals: [validateSignal(body, 'signal', now)], single: true };
}
