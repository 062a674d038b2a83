/**
 * The tenant's activity log (`GET /v1.0/myorg/admin/activityevents`), played with the quirks the
 * vendor documents (vendor-specs/powerbi-activity/README.md §1): start and end quoted ISO-8601
 * UTC times in the same UTC day (else 400), no day older than 30 days; a window is served an hour
 * of it per page, so a window longer than an hour always takes several requests and a page may be
 * empty yet carry a continuation; `continuationUri` holds the (quoted) token; the last page says
 * `lastResultSet: true`. Events are visible only from `visibleAt` (late events), and
 * `CreationTime` is written without a zone, as the vendor's examples do.
 */
import { randomUUID } from 'node:crypto';
import { type Handler, ok, powerBiError, type RequestContext } from './reply.js';
import type { SimState } from './types.js';

type SimActivityEntry = NonNullable<SimState['activity']>[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** At most this many events a page (the service serves some thousands). */
export const ACTIVITY_PAGE_SIZE = 500;
const QUOTED_UTC = /^'(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)'$/;

interface Position {
  /** Window start and inclusive end (ms). */
  s: number;
  e: number;
  /** The hour slice being served and how many of its events were served. */
  p: number;
  o: number;
}

function tokenOf(p: Position): string {
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');
}

function positionOf(token: string): Position | null {
  try {
    const p = JSON.parse(Buffer.from(token.replace(/^'|'$/g, ''), 'base64url').toString('utf8')) as Position;
    return [p.s, p.e, p.p, p.o].every((n) => Number.isInteger(n) && n >= 0) ? p : null;
  } catch {
    return null;
  }
}

function badRequest(message: string) {
  return powerBiError(400, 'BadRequest', message);
}

function firstPosition(ctx: RequestContext): Position | ReturnType<typeof badRequest> {
  const start = QUOTED_UTC.exec(ctx.query.get('startDateTime') ?? '');
  const end = QUOTED_UTC.exec(ctx.query.get('endDateTime') ?? '');
  if (!start || !end) return badRequest("startDateTime and endDateTime must be UTC date-times wrapped in single quotes ('2026-11-20T00:00:00.000Z'), or give a continuationToken.");
  const s = Date.parse(start[1]!);
  const e = Date.parse(end[1]!);
  if (!Number.isFinite(s) || !Number.isFinite(e) || e < s) return badRequest('endDateTime must not be before startDateTime.');
  if (Math.floor(s / DAY_MS) !== Math.floor(e / DAY_MS)) return badRequest('startDateTime and endDateTime must be in the same UTC day.');
  if (s < Math.floor(ctx.now / DAY_MS) * DAY_MS - 30 * DAY_MS) return badRequest('The activity log keeps 30 days: startDateTime is too old.');
  return { s, e, p: s, o: 0 };
}

/** The events of [from, to) visible now, in time order. */
function visible(state: SimState, now: number, from: number, to: number): SimActivityEntry[] {
  return (state.activity ?? []).filter((a) => a.at >= from && a.at < to && a.visibleAt <= now).sort((x, y) => x.at - y.at || x.seq - y.seq);
}

export const serveActivityEvents: Handler = (ctx) => {
  const token = ctx.query.get('continuationToken');
  const pos = token !== null ? positionOf(token) : firstPosition(ctx);
  if (pos === null) return badRequest('The continuationToken is not one this service gave.');
  if ('status' in pos) return pos;
  const sliceEnd = Math.min(pos.p + HOUR_MS, pos.e + 1);
  const events = visible(ctx.state, ctx.now, pos.p, sliceEnd);
  const page = events.slice(pos.o, pos.o + ACTIVITY_PAGE_SIZE);
  const more = pos.o + page.length < events.length;
  const next: Position | null = more ? { ...pos, o: pos.o + page.length } : sliceEnd <= pos.e ? { ...pos, p: sliceEnd, o: 0 } : null;
  const body: Record<string, unknown> = { activityEventEntities: page.map((a) => a.record) };
  if (next) {
    const t = encodeURIComponent(tokenOf(next));
    body.continuationUri = `${ctx.origin}/v1.0/myorg/admin/activityevents?continuationToken='${t}'`;
    body.continuationToken = t;
    body.lastResultSet = false;
  } else body.lastResultSet = true;
  return ok(body);
};

/** `CreationTime` as the vendor's examples write it: UTC without a zone. */
export function creationTime(at: number): string {
  return new Date(at).toISOString().slice(0, 19);
}

/** Adds an event to the log; `record` as given (malformed ones too), else built from the fields. */
export function addActivity(
  state: SimState,
  now: number,
  a: { activity?: string; at?: string; fields?: Record<string, unknown>; lateMinutes?: number; id?: string; record?: unknown; userId?: string },
): string {
  const at = a.at === undefined ? now : Date.parse(a.at);
  if (!Number.isFinite(at)) throw new Error('at must be an ISO date-time');
  const id = a.id ?? randomUUID();
  const record =
    a.record !== undefined
      ? a.record
      : {
          Id: id,
          RecordType: 20,
          CreationTime: creationTime(at),
          Operation: a.activity,
          OrganizationId: state.tenantId,
          UserType: 0,
          UserKey: '10033FFF8A1B2C3D',
          Workload: 'PowerBI',
          UserId: a.userId ?? 'ana.souza@contoso.example',
          ClientIP: '203.0.113.7',
          UserAgent: 'Mozilla/5.0',
          Activity: a.activity,
          IsSuccess: true,
          RequestId: randomUUID(),
          ActivityId: randomUUID(),
          ...a.fields,
        };
  state.activity ??= [];
  const log = state.activity;
  log.push({ at, visibleAt: at + Math.max(0, a.lateMinutes ?? 0) * 60_000, seq: log.length, record });
  return id;
}
