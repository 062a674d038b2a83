/**
 * Page-number paging shared by the public and the admin API: the request (page, pageSize,
 * offset) and the envelope `{ value, page, pageSize, totalCount, nextLink }`. `nextLink`
 * repeats every parameter of the request, so following it never changes the result set; it is
 * empty on the last page and after page 1000, the deepest page a client may ask for.
 */

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

/** `path` is the full path of the list (with the API's prefix); `params` are the other query parameters. */
export function pageEnvelope<T>(
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
    nextLink = `${path}?${qs.toString()}`;
  }
  return { value, page: p.page, pageSize: p.pageSize, totalCount, nextLink };
}
