/** JSON schemas shared by the public routes: they validate, serialize and document (OpenAPI). */
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from './paging.js';

export const errorSchema = {
  type: 'object',
  description: 'Error envelope (SPEC §7).',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
} as const;

export const pagingQuery = {
  page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, 1 to 1000.' },
  pageSize: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: 'Items per page, 1 to 500.',
  },
  format: { type: 'string', enum: ['json', 'csv'], description: '`csv` returns the same page as a CSV file.' },
} as const;

export const nullableString = { type: ['string', 'null'] } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

export function pagedSchema(item: object, description: string) {
  return {
    type: 'object',
    description,
    required: ['value', 'page', 'pageSize', 'totalCount', 'nextLink'],
    properties: {
      value: { type: 'array', items: item },
      page: { type: 'integer' },
      pageSize: { type: 'integer' },
      totalCount: { type: 'integer' },
      nextLink: { type: 'string', description: 'Relative path and query of the next page; empty on the last page.' },
    },
  } as const;
}

const csvHeaders = {
  'X-Total-Count': { type: 'integer' },
  'X-Page': { type: 'integer' },
  'X-Page-Size': { type: 'integer' },
  'X-Next-Link': { type: 'string' },
};

export const errorResponses = {
  400: { ...errorSchema, description: 'invalid_request: the message names the parameter.' },
  401: { ...errorSchema, description: 'unauthorized: key missing, invalid, expired or revoked.' },
  403: { ...errorSchema, description: 'forbidden: the key lacks the scope, or the organization is suspended.' },
  429: { ...errorSchema, description: 'rate_limited: see Retry-After.' },
};

/** Response map of a list route: JSON envelope, or CSV with the paging headers. */
export function listResponses(item: object, description: string) {
  return {
    200: {
      description,
      headers: csvHeaders,
      content: {
        'application/json': { schema: pagedSchema(item, description) },
        'text/csv': { schema: { type: 'string', description: 'UTF-8 with BOM, CRLF, RFC 4180; paging in the X-* headers.' } },
      },
    },
    ...errorResponses,
  };
}

export const durationStats = {
  type: 'object',
  required: ['medianSeconds', 'meanSeconds', 'samples'],
  properties: {
    medianSeconds: { type: ['number', 'null'] },
    meanSeconds: { type: ['number', 'null'] },
    samples: { type: 'integer' },
  },
} as const;

export const bySourceTypeItem = {
  type: 'object',
  required: ['sourceType', 'incidents'],
  properties: { sourceType: { type: 'string' }, incidents: { type: 'integer' } },
} as const;

export const noisiestSourceItem = {
  type: 'object',
  required: ['sourceType', 'sourceName', 'incidents', 'occurrences'],
  properties: {
    sourceType: { type: 'string' },
    sourceName: { type: 'string' },
    incidents: { type: 'integer' },
    occurrences: { type: 'integer' },
  },
} as const;

export const security: Array<Record<string, string[]>> = [{ apiKeyHeader: [] }, { apiKeyAuthorization: [] }];
