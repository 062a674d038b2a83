import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { invalidRequest } from '../http/errors.js';

/**
 * Strict query-string validation for the public API, driven by the same JSON schemas that
 * generate the OpenAPI document. Fastify's ajv (coerceTypes off) cannot tell "page=5" from an
 * integer, and its messages do not say "repeated" or "unknown parameter"; this compiler does.
 *
 * Supported schema keywords (all our query schemas use): properties, additionalProperties false,
 * type integer|string, minimum, maximum, enum, pattern, minLength, maxLength, format
 * (date-time = ISO 8601 UTC with Z, date = yyyy-MM-dd), default.
 */

interface PropSchema {
  type?: 'integer' | 'string';
  minimum?: number;
  maximum?: number;
  enum?: string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  format?: 'date-time' | 'date';
  default?: unknown;
  /** What a valid value looks like, for the error message of a pattern mismatch. */
  'x-expected'?: string;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INTEGER = /^[0-9]{1,15}$/;

/** 'yyyy-MM-ddTHH:mm:ss(.fff)Z' → Date, or null if malformed or impossible (Feb 30, 24:00…). */
export function parseUtcDateTime(text: string): Date | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (h > 23 || mi > 59 || s > 59) return null;
  const date = utc(y, mo, d);
  if (!date) return null;
  return new Date(date.getTime() + ((h * 60 + mi) * 60 + s) * 1000 + ms);
}

/** 'yyyy-MM-dd' → Date at 00:00Z, or null if malformed or impossible. */
export function parseUtcDate(text: string): Date | null {
  const m = DATE.exec(text);
  if (!m) return null;
  return utc(Number(m[1]), Number(m[2]), Number(m[3]));
}

function utc(y: number, mo: number, d: number): Date | null {
  if (y < 1970 || mo < 1 || mo > 12 || d < 1) return null;
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? date : null;
}

function checkValue(name: string, raw: string, p: PropSchema): unknown {
  if (p.type === 'integer') {
    const min = p.minimum ?? 0;
    const max = p.maximum ?? Number.MAX_SAFE_INTEGER;
    const n = INTEGER.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw invalidRequest(`${name} must be an integer from ${min} to ${max}`);
    }
    return n;
  }
  if (p.enum && !p.enum.includes(raw)) {
    throw invalidRequest(`${name} must be one of: ${p.enum.join(', ')}`);
  }
  if (p.format === 'date-time' && !parseUtcDateTime(raw)) {
    throw invalidRequest(`${name} must be a valid ISO 8601 UTC date-time such as 2026-01-31T00:00:00Z`);
  }
  if (p.format === 'date' && !parseUtcDate(raw)) {
    throw invalidRequest(`${name} must be a valid date in the form yyyy-MM-dd`);
  }
  if (p.minLength !== undefined && raw.length < p.minLength) throw invalidRequest(`${name} must not be empty`);
  if (p.maxLength !== undefined && raw.length > p.maxLength) {
    throw invalidRequest(`${name} must be at most ${p.maxLength} characters`);
  }
  if (p.pattern && !new RegExp(p.pattern, 'u').test(raw)) throw invalidRequest(`${name} must be ${p['x-expected'] ?? `of the form ${p.pattern}`}`);
  return raw;
}

/** Fastify validator compiler: query strings strictly, anything else must be absent. */
export const strictQueryCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  if (httpPart !== 'querystring') {
    return () => ({ value: undefined });
  }
  const props = ((schema as { properties?: Record<string, PropSchema> }).properties ?? {}) as Record<string, PropSchema>;
  const names = Object.keys(props);
  return (input: unknown) => {
    const query = (input ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(query)) {
      if (!Object.hasOwn(props, key)) {
        return { error: invalidRequest(`unknown query parameter "${truncate(key)}"`) };
      }
      const raw = query[key];
      if (Array.isArray(raw)) return { error: invalidRequest(`query parameter "${key}" is repeated`) };
      try {
        out[key] = checkValue(key, String(raw), props[key]!);
      } catch (err) {
        return { error: err as Error };
      }
    }
    for (const name of names) {
      if (out[name] === undefined && props[name]!.default !== undefined) out[name] = props[name]!.default;
    }
    return { value: out };
  };
};

function truncate(text: string): string {
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}
