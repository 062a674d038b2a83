/** JSON schemas shared by the public routes: they validate, serialize and document (OpenAPI). */
import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE } from './paging.js';
import { COST_FIELDS } from './queries/costs.js';
import { UTILIZATION_FIELDS } from './queries/capacity-utilization.js';

export const errorSchema = {
  title: 'Error',
  type: 'object',
  description: 'Error envelope: every failure of the API answers with it.',
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

/** A window of whole days, both inclusive (metrics, daily costs). */
export const dayRangeQuery = {
  from: { type: 'string', format: 'date', description: 'First day, yyyy-MM-dd (inclusive).' },
  to: { type: 'string', format: 'date', description: 'Last day, yyyy-MM-dd (inclusive).' },
} as const;

export const nullableString = { type: ['string', 'null'] } as const;
export const dateTime = { type: 'string', format: 'date-time' } as const;
export const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;

export function pagedSchema(item: object, title: string, description: string) {
  return {
    title,
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

/**
 * Response headers. Every answer after the key check carries the key's RateLimit-* headers;
 * a 429 also says when to retry.
 */
const rateLimitHeaders = {
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed per key per minute.' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current minute.' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the current minute ends.' },
};

const csvHeaders = {
  'X-Total-Count': { type: 'integer' },
  'X-Page': { type: 'integer' },
  'X-Page-Size': { type: 'integer' },
  'X-Next-Link': { type: 'string' },
  'Content-Disposition': { type: 'string', description: 'CSV only: attachment; filename="<resource>-page-<n>.csv".' },
};

function errorResponse(description: string, headers?: Record<string, unknown>) {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: errorSchema } } };
}

export const errorResponses = {
  400: errorResponse('invalid_request: the message names the parameter.'),
  401: errorResponse('unauthorized: key missing, invalid, expired or revoked.'),
  403: errorResponse('forbidden: the key lacks the scope, or the organization is suspended.'),
  404: errorResponse('not_found: no such route.'),
  405: errorResponse('method_not_allowed: only GET and HEAD are answered.', {
    Allow: { type: 'string', description: 'GET, HEAD' },
  }),
  429: errorResponse('rate_limited: too many requests for the key, or too many invalid keys from the address.', {
    'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying.' },
    ...rateLimitHeaders,
  }),
};

/** Response map of a route answering one JSON object. */
export function objectResponses(schema: object, description: string) {
  return {
    200: { description, headers: rateLimitHeaders, content: { 'application/json': { schema } } },
    ...errorResponses,
  };
}

/** Response map of a list route: JSON envelope, or CSV with the paging headers. */
export function listResponses(item: object, pageTitle: string, description: string) {
  return {
    200: {
      description,
      headers: { ...rateLimitHeaders, ...csvHeaders },
      content: {
        'application/json': { schema: pagedSchema(item, pageTitle, description) },
        'text/csv': { schema: { type: 'string', description: 'UTF-8 with BOM, CRLF, RFC 4180; paging in the X-* headers.' } },
      },
    },
    ...errorResponses,
  };
}

export const durationStats = {
  title: 'DurationStats',
  type: 'object',
  required: ['medianSeconds', 'meanSeconds', 'samples'],
  properties: {
    medianSeconds: { type: ['number', 'null'] },
    meanSeconds: { type: ['number', 'null'] },
    samples: { type: 'integer' },
  },
} as const;

export const bySourceTypeItem = {
  title: 'SourceTypeCount',
  type: 'object',
  required: ['sourceType', 'incidents'],
  properties: { sourceType: { type: 'string' }, incidents: { type: 'integer' } },
} as const;

export const noisiestSourceItem = {
  title: 'NoisySource',
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

/** One day's cost of one capacity, as the public list and the console's overview answer it. */
export const dailyCostItem = {
  title: 'DailyCost',
  type: 'object',
  required: [...COST_FIELDS],
  properties: {
    date: { type: 'string', format: 'date' },
    capacityName: { type: 'string' },
    currency: { type: 'string', description: 'ISO 4217' },
    cost: { type: 'number' },
    amortizedCost: { type: 'number' },
    overageCost: { type: 'number' },
  },
} as const;

const figure = (d: string) => ({ type: 'number', description: d }) as const;

export const capacityUtilizationItem = {
  title: 'CapacityUtilization',
  type: 'object',
  required: [...UTILIZATION_FIELDS],
  properties: {
    time: { type: 'string', format: 'date-time', description: 'Start of the 30-second window or of the hour (UTC).' },
    capacityName: { type: 'string' },
    granularity: { type: 'string', enum: ['30s', 'hour'] },
    windows: { type: 'integer', description: '30-second windows the item covers (an hour has up to 120).' },
    utilizationMax: figure('CU used, % of the capacity (max over the item).'),
    utilizationMean: figure('CU used, % of the capacity (mean).'),
    interactiveDelayMax: figure('Use of the next 10 minutes already committed, % (over 100: interactive delay).'),
    interactiveDelayMean: figure('Same, mean.'),
    interactiveRejectionMax: figure('Use of the next hour already committed, % (over 100: interactive rejection).'),
    interactiveRejectionMean: figure('Same, mean.'),
    backgroundRejectionMax: figure('Use of the next 24 hours already committed, % (over 100: background rejection).'),
    backgroundRejectionMean: figure('Same, mean.'),
    carryForwardMaxCuSeconds: figure('Largest carry-forward (overage still to burn down), CU seconds.'),
    interactiveDelayMinutes: figure('Minutes with interactive delay in force.'),
    interactiveRejectionMinutes: figure('Minutes with interactive rejection in force.'),
    backgroundRejectionMinutes: figure('Minutes with background rejection in force.'),
  },
} as const;
