/**
 * The vendors' paging: Fabric `continuationToken`/`continuationUri` (absent on the last page),
 * Power BI `$top`/`$skip`, ARM `nextLink` with a `$skipToken`.
 */
import { fabricError, powerBiError, type Reply, type RequestContext } from './reply.js';

function encodeToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, v: 1 })).toString('base64url');
}

function decodeToken(token: string): number | null {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return Number.isInteger(v?.o) && v.o >= 0 ? v.o : null;
  } catch {
    return null;
  }
}

/** One Fabric page of `items` under `key` ('value', or 'data' for mirrored tables). */
export function fabricPage<T>(ctx: RequestContext, items: readonly T[], key = 'value', map?: (item: T) => unknown): Reply {
  const token = ctx.query.get('continuationToken');
  const offset = token === null ? 0 : decodeToken(token);
  if (offset === null) return fabricError(400, 'InvalidContinuationToken', 'The continuation token is not valid.');
  const slice = items.slice(offset, offset + ctx.fabricPageSize);
  const body: Record<string, unknown> = { [key]: map ? slice.map(map) : slice };
  const next = offset + ctx.fabricPageSize;
  if (next < items.length) {
    const nextToken = encodeToken(next);
    const q = new URLSearchParams(ctx.query);
    q.set('continuationToken', nextToken);
    body.continuationToken = nextToken;
    body.continuationUri = `${ctx.origin}${ctx.path}?${q.toString()}`;
  }
  return { status: 200, body };
}

/** A Power BI OData list with `$top`/`$skip` (`$top` at most 5000 where the API requires it). */
export function powerBiList<T>(ctx: RequestContext, items: readonly T[], odataContext: string, map?: (item: T) => unknown): Reply {
  const top = ctx.query.get('$top');
  const skip = ctx.query.get('$skip');
  const t = top === null ? items.length : Number(top);
  const s = skip === null ? 0 : Number(skip);
  if (!Number.isInteger(t) || t < 1 || t > 5000) return powerBiError(400, 'InvalidRequest', "Invalid $top value: it must be between 1 and 5000.");
  if (!Number.isInteger(s) || s < 0) return powerBiError(400, 'InvalidRequest', 'Invalid $skip value.');
  const slice = items.slice(s, s + t);
  return { status: 200, body: { 'odata.context': `${ctx.origin}/v1.0/myorg/$metadata#${odataContext}`, value: map ? slice.map(map) : slice } };
}

/** An ARM list page; `nextLink` carries a `$skipToken`. */
export function armPage<T>(ctx: RequestContext, items: readonly T[], pageSize: number, map: (item: T) => unknown): Reply {
  const token = ctx.query.get('$skipToken');
  const offset = token === null ? 0 : Number(token);
  if (!Number.isInteger(offset) || offset < 0) return { status: 400, body: { error: { code: 'InvalidSkipToken', message: 'The $skipToken is not valid.' } } };
  const body: Record<string, unknown> = { value: items.slice(offset, offset + pageSize).map(map) };
  if (offset + pageSize < items.length) {
    const q = new URLSearchParams(ctx.query);
    q.set('$skipToken', String(offset + pageSize));
    body.nextLink = `${ctx.origin}${ctx.path}?${q.toString()}`;
  }
  return { status: 200, body };
}
