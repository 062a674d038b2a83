import type { FastifyReply } from 'fastify';

export const MAX_PAGE = 1000;
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 100;

export interface Paged<T> {
  value: T[];
  page: number;
  pageSize: number;
  totalCount: number;
  nextLink: string;
}

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

export function pageRequest(q: { page?: number; pageSize?: number }): PageRequest {
  const page = q.page ?? 1;
  const pageSize = q.pageSize ?? DEFAULT_PAGE_SIZE;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/**
 * The envelope of SPEC §2.7. `nextLink` repeats every parameter of the resolved request (explicit
 * window included) so following it never shifts the window; it is empty on the last page and
 * after page 1000, which is the deepest page a client may ask for.
 */
export function envelope<T>(
  path: string,
  params: Record<string, string | number | undefined>,
  p: PageRequest,
  totalCount: number,
  value: T[],
): Paged<T> {
  const hasNext = p.page * p.pageSize < totalCount && p.page < MAX_PAGE;
  let nextLink = '';
  if (hasNext) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, String(v));
    qs.set('page', String(p.page + 1));
    qs.set('pageSize', String(p.pageSize));
    nextLink = `/api/public/v1${path}?${qs.toString()}`;
  }
  return { value, page: p.page, pageSize: p.pageSize, totalCount, nextLink };
}

// CONTRACT §3: a text cell starting with one of these could run as a spreadsheet formula.
const FORMULA_START = /^[=+\-@\t\r\n]/;

/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled. */
function field(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = String(v);
  return field(FORMULA_START.test(s) ? `'${s}` : s);
}

/** RFC 4180 CSV, CRLF after every record, UTF-8 with BOM, header row = `fields` in SPEC order. */
export function toCsv(fields: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  const lines = [fields.map(field).join(',')];
  for (const r of rows) lines.push(fields.map((f) => cell(r[f])).join(','));
  return `\ufeff${lines.join('\r\n')}\r\n`;
}

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
