import type { Queryable } from '../db/index.js';
import type { AppContext } from '../context.js';
import { newId } from '../ids.js';
import { notFoundError } from '../errors.js';
import { auditTarget } from '../access/audit-context.js';
import { DEFAULT_LANGUAGE, type Language } from './language.js';
import { DEFAULT_TIME_ZONE, requireTimeZone } from './time-zone.js';
import { requireReplyTo } from './reply-to.js';

export interface SlaTargets {
  mttaMinutes: number;
  mttrMinutes: number;
  availabilityPercent: number;
}

export interface Org {
  id: string;
  name: string;
  suspended: boolean;
  escalationMinutes: number | null;
  slaTargets: SlaTargets;
  /** The language of the titles and messages Vigia's collectors write for this organization. */
  language: Language;
  /** IANA time zone chat and e-mail messages show times in (docs/notifications.md). */
  timeZone: string;
  /** Acknowledge links in messages act only for a person signed in to the console (docs/notifications.md). */
  ackRequiresSignIn: boolean;
  /** Reply-To of the alert e-mail its destinations send; null = none (docs/notifications.md, "E-mail"). */
  emailReplyTo: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CreateOrgInput {
  name: string;
  escalationMinutes?: number | null;
  slaTargets?: Partial<SlaTargets>;
  language?: Language;
  timeZone?: string;
  ackRequiresSignIn?: boolean;
  emailReplyTo?: string | null;
}

export interface UpdateOrgInput {
  name?: string;
  suspended?: boolean;
  escalationMinutes?: number | null;
  slaTargets?: Partial<SlaTargets>;
  language?: Language;
  timeZone?: string;
  ackRequiresSignIn?: boolean;
  emailReplyTo?: string | null;
}

export const DEFAULT_ESCALATION_MINUTES = 30;
export const DEFAULT_SLA: SlaTargets = { mttaMinutes: 15, mttrMinutes: 240, availabilityPercent: 99.9 };

interface OrgRow {
  id: string;
  name: string;
  suspended: boolean;
  escalation_minutes: number | null;
  sla_mtta_minutes: number;
  sla_mttr_minutes: number;
  sla_availability_percent: number;
  language: Language;
  time_zone: string;
  ack_requires_sign_in: boolean;
  email_reply_to: string | null;
  created_at: Date;
  updated_at: Date;
}

function toOrg(r: OrgRow): Org {
  return {
    id: r.id,
    name: r.name,
    suspended: r.suspended,
    escalationMinutes: r.escalation_minutes,
    slaTargets: {
      mttaMinutes: r.sla_mtta_minutes,
      mttrMinutes: r.sla_mttr_minutes,
      availabilityPercent: Number(r.sla_availability_percent),
    },
    language: r.language,
    timeZone: r.time_zone,
    ackRequiresSignIn: r.ack_requires_sign_in,
    emailReplyTo: r.email_reply_to,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export async function createOrg(ctx: Pick<AppContext, 'db' | 'clock'>, input: CreateOrgInput): Promise<Org> {
  const now = ctx.clock.now();
  const sla = { ...DEFAULT_SLA, ...input.slaTargets };
  const escalation = input.escalationMinutes === undefined ? DEFAULT_ESCALATION_MINUTES : input.escalationMinutes;
  const timeZone = requireTimeZone(input.timeZone ?? DEFAULT_TIME_ZONE);
  const id = newId('org', now);
  // Named before the insert, which records it: a new organization's creation is in its own log.
  auditTarget(id, { orgId: id });
  const { rows } = await ctx.db.query<OrgRow>(
    `INSERT INTO orgs (id, name, escalation_minutes, sla_mtta_minutes, sla_mttr_minutes, sla_availability_percent, language, time_zone, email_reply_to, ack_requires_sign_in, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $10, $11, $8, $8) RETURNING *`,
    [id, input.name, escalation, sla.mttaMinutes, sla.mttrMinutes, sla.availabilityPercent, input.language ?? DEFAULT_LANGUAGE, now, timeZone, requireReplyTo(input.emailReplyTo ?? null), input.ackRequiresSignIn ?? false],
  );
  return toOrg(rows[0]!);
}

export async function listOrgs(q: Queryable): Promise<Org[]> {
  const { rows } = await q.query<OrgRow>('SELECT * FROM orgs ORDER BY created_at, id');
  return rows.map(toOrg);
}

export async function findOrg(q: Queryable, orgId: string, opts: { lock?: boolean } = {}): Promise<Org | null> {
  const { rows } = await q.query<OrgRow>(`SELECT * FROM orgs WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [orgId]);
  return rows[0] ? toOrg(rows[0]) : null;
}

/**
 * The org or a 404 — every org-scoped route starts here so unknown ids never reach a query.
 * `lock` holds the org row until the caller's transaction ends (serializes per-org limits).
 */
export async function requireOrg(q: Queryable, orgId: string, opts: { lock?: boolean } = {}): Promise<Org> {
  const org = await findOrg(q, orgId, opts);
  if (!org) throw notFoundError('organization');
  return org;
}

export async function updateOrg(ctx: Pick<AppContext, 'db' | 'clock'>, orgId: string, input: UpdateOrgInput): Promise<Org> {
  const now = ctx.clock.now();
  if (input.timeZone !== undefined) requireTimeZone(input.timeZone);
  if (input.emailReplyTo !== undefined) requireReplyTo(input.emailReplyTo);
  return ctx.db.tx(async (q) => {
    const { rows } = await q.query<OrgRow>('SELECT * FROM orgs WHERE id = $1 FOR UPDATE', [orgId]);
    if (!rows[0]) throw notFoundError('organization');
    const cur = toOrg(rows[0]);
    const sla = { ...cur.slaTargets, ...input.slaTargets };
    const { rows: updated } = await q.query<OrgRow>(
      `UPDATE orgs SET name = $2, suspended = $3, escalation_minutes = $4, sla_mtta_minutes = $5,
         sla_mttr_minutes = $6, sla_availability_percent = $7, updated_at = $8, language = $9, time_zone = $10, email_reply_to = $11, ack_requires_sign_in = $12
       WHERE id = $1 RETURNING *`,
      [
        orgId,
        input.name ?? cur.name,
        input.suspended ?? cur.suspended,
        input.escalationMinutes === undefined ? cur.escalationMinutes : input.escalationMinutes,
        sla.mttaMinutes,
        sla.mttrMinutes,
        sla.availabilityPercent,
        now,
        input.language ?? cur.language,
        input.timeZone ?? cur.timeZone,
        input.emailReplyTo === undefined ? cur.emailReplyTo : input.emailReplyTo,
        input.ackRequiresSignIn ?? cur.ackRequiresSignIn,
      ],
    );
    return toOrg(updated[0]!);
  });
}

