import type { FastifyReply } from 'fastify';
import type { Paged } from '../http/paging.js';
import { toCsv } from './csv.js';

export { MAX_PAGE, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, pageRequest, type Paged, type PageRequest } from '../http/paging.js';

/**
 * Sends a page as JSON (serialized by the route's response schema) or as CSV with paging headers.
 * A CSV page is a download named `<resource>-page-<n>.csv`, so saved pages do not overwrite each other.
 */
export function sendPage<T extends object>(
  reply: FastifyReply,
  format: string | undefined,
  resource: string,
  fields: readonly string[],
  page: Paged<T>,
): FastifyReply {
  if (format !== 'csv') return reply.send(page);
  return reply
    .header('content-disposition', `attachment; filename="${resource}-page-${page.page}.csv"`)
    .header('x-total-count', String(page.totalCount))
    .header('x-page', String(page.page))
    .header('x-page-size', String(page.pageSize))
    .header('x-next-link', page.nextLink)
    .type('text/csv; charset=utf-8')
    .send(toCsv(fields, page.value as ReadonlyArray<Record<string, unknown>>));
}

/**
 * Sends a page whose items the database already wrote as one JSON array text (see
 * page-statement.ts). JSON: the envelope is written around the text with the bytes the response
 * schema's serializer writes (value, page, pageSize, totalCount, nextLink); CSV: as `sendPage`.
 */
export function sendJsonTextPage(
  reply: FastifyReply,
  format: string | undefined,
  resource: string,
  fields: readonly string[],
  page: Paged<never>,
  itemsJson: string,
): FastifyReply {
  if (format === 'csv') return sendPage(reply, format, resource, fields, { ...page, value: JSON.parse(itemsJson) as object[] });
  const rest = `"page":${page.page},"pageSize":${page.pageSize},"totalCount":${page.totalCount},"nextLink":${JSON.stringify(page.nextLink)}`;
  return reply.type('application/json; charset=utf-8').send(`{"value":${itemsJson},${rest}}`);
}
