import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { DATE_RANGE_TEXT, parseDay, parseInstant } from '../date-rule.js';
import { invalidRequest } from '../http/errors.js';

/**
 * Strict query-string validation for the public API, driven by the same JSON schemas that
 * generate the OpenAPI document. Fastify's ajv (coerceTypes off) cannot tell "page=5" from an
 * integer, and its messages do not say "repeated" or "unknown parameter"; this compiler does.
 *
 * Supported schema keywords (all our query schemas use): properties, additionalProperties false,
 * type integer|string, minimum, maximum, enum, pattern, minLength, maxLength, format
 * (date-time = ISO 8601 UTC with Z, date = yyyy-MM-dd, both inside the date rule of
 * src/date-rule.ts), default.
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

const INTEGER = /^[0-9]{1,15}$/;

/** 'yyyy-MM-ddTHH:mm:ss(.fff)Z' inside the date rule → Date, or null (malformed, impossible or out of range). */
export function parseUtcDateTime(text: string): Date | null {
  return parseInstant(text, { utcOnly: true });
}

/** 'yyyy-MM-dd' inside the date rule → Date at 00:00Z, or null. */
export function parseUtcDate(text: string): Date | null {
  return parseDay(text);
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
    throw invalidRequest(`${name} must be a valid ISO 8601 UTC date-time such as 2026-01-31T00:00:00Z, ${DATE_RANGE_TEXT}`);
  }
  if (p.format === 'date' && !parseUtcDate(raw)) {
    throw invalidRequest(`${name} must be a valid date in the form yyyy-MM-dd, ${DATE_RANGE_TEXT}`);
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
