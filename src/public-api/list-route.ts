/**
 * One public API list route: the query (the route's own parameters, then page, pageSize and
 * format), the caller's page read in one statement that re-checks the key, and the answer as
 * JSON or CSV with the paging envelope. The list routes (alerts, capacities, workspaces, daily
 * costs, capacity utilization) differ only in what `ListRoute` names.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import type { Scope } from './auth.js';
import type { JsonPage, KeyRecheck } from './page-statement.js';
import { pageEnvelope } from '../http/paging.js';
import { pageRequest, sendJsonTextPage } from './paging.js';
import { listResponses, pagingQuery, security } from './schemas.js';

/** The query parameters every list takes. */
export interface PagingParams {
  page?: number;
  pageSize?: number;
  format?: string;
}

export interface ListRoute<Q extends PagingParams, F, P extends JsonPage> {
  /** The list's path under /api/public/v1. */
  path: string;
  scope: Scope;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** The query parameters besides page, pageSize and format. */
  query?: Record<string, object>;
  item: object;
  /** The page schema's title and description (OpenAPI). */
  page: { title: string; description: string };
  /** The CSV download's name (`<name>-page-<n>.csv`) and its columns. */
  csv: { name: string; fields: readonly string[] };
  /** The statement's filter for the caller's organization; a bad query throws its 4xx here. */
  filter(q: Q, orgId: string, now: Date): F;
  /** One page of items as JSON text, in one statement that re-checks the key (page-statement.ts). */
  read(db: Queryable, filter: F, offset: number, limit: number, recheck: KeyRecheck | null): Promise<P>;
  /** The parameters `nextLink` repeats, in order (`format` follows them). */
  params(q: Q, filter: F, page: P): Record<string, string | number | undefined>;
}

export function listRoute<Q extends PagingParams, F, P extends JsonPage>(app: FastifyInstance, ctx: AppContext, r: ListRoute<Q, F, P>): void {
  app.get(
    r.path,
    {
      config: { scope: r.scope, recheckKey: true },
      schema: {
        operationId: r.operationId,
        summary: r.summary,
        description: r.description,
        tags: [r.tag],
        security,
        querystring: { type: 'object', additionalProperties: false, properties: { ...r.query, ...pagingQuery } },
        response: listResponses(r.item, r.page.title, r.page.description),
      },
    },
    async (request, reply) => {
      const q = request.query as Q;
      const caller = request.apiCaller!;
      const filter = r.filter(q, caller.orgId, ctx.clock.now());
      const p = pageRequest(q);
      const page = await caller.checked((recheck) => r.read(ctx.db, filter, p.offset, p.pageSize, recheck));
      const meta = pageEnvelope<never>(`/api/public/v1${r.path}`, { ...r.params(q, filter, page), format: q.format }, p, page.totalCount, []);
      return sendJsonTextPage(reply, q.format, r.csv.name, r.csv.fields, meta, page.itemsJson);
    },
  );
}
