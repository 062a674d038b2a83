/**
 * The one rule for stored credentials (docs/access.md, "Where credentials may go"): a credential
 * is bound to the addresses it was given for. For every address field of the table in
 * credential-origins.ts, on every create and change of a destination or a tenant connection:
 *
 * 1. a value names a host of the field's table (https, default port), a host the operator
 *    allowlisted (VIGIA_DESTINATION_ALLOWLIST), or — ServiceNow only — a custom instance domain
 *    the organization allows; otherwise 400 naming the field and the accepted hosts;
 * 2. it passes the destination-safety rules, and a new or moved value must resolve now (to
 *    public addresses): a host without a DNS answer is refused;
 * 3. when the address a credential goes to changes (the value, or the region's default behind
 *    it; set for the first time included, removed excepted), the request must give the
 *    credentials again; otherwise 400 naming them. A stored credential never follows a changed
 *    address.
 */
import type { AppContext } from '../context.js';
import type { Queryable } from '../db/index.js';
import { invalidInput } from '../errors.js';
import { Allowlist, UnsafeDestinationError, checkDestinationUrl, urlHost } from './address-policy.js';
import { CREDENTIAL_ORIGINS, valueAt, type BoundUrlField, type CredentialSubject, type HostRule } from './credential-origins.js';
import { checkDestinationUrlResolved } from './guarded-http.js';

export interface AddressChange {
  subject: CredentialSubject;
  orgId: string;
  /** What is stored now, in the shape of `after`; null for a new destination or connection. */
  before: Record<string, unknown> | null;
  /** What will be stored: `{ url, config }` of a destination, `{ endpoints, utilization }` of a tenant. */
  after: Record<string, unknown>;
  /** The request gives the credentials (a create always does). */
  credentialsGiven: boolean;
  /** The credential fields stored now (`credentials.username`…; a tenant's `credentials`). */
  storedCredentials: readonly string[];
  /** ServiceNow: the custom instance domain the owner allows with this request (`customInstanceDomain`). */
  customInstanceDomain?: string;
}

/** Where a field sends requests: its value, or the default behind it, normalized; null for nowhere. */
export function addressOf(f: BoundUrlField, body: Record<string, unknown>): string | null {
  const v = valueAt(body, f.field);
  const text = typeof v === 'string' && v.trim() !== '' ? v.trim() : (f.fallback?.(body) ?? null);
  if (text === null) return null;
  if (!URL.canParse(text)) return text;
  const u = new URL(text);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

const bareHost = (url: URL) => urlHost(url).toLowerCase().replace(/\.$/, '');

function onTable(rule: HostRule, host: string): boolean {
  return (rule.hosts ?? []).includes(host) || (rule.suffixes ?? []).some((s) => host.endsWith(s) && host.length > s.length);
}

function hostMessage(f: BoundUrlField, rule: HostRule): string {
  const list = [...(rule.hosts ?? []), ...(rule.suffixes ?? []).map((s) => `*${s}`)].join(', ');
  const custom = rule.orgAllowance
    ? '; a custom instance domain needs the organization\'s allowance: give "customInstanceDomain" (its host) with the credentials in the same request'
    : '';
  return `${f.field} must be ${rule.label} (${list}; https on the default port) or a host the operator lists in VIGIA_DESTINATION_ALLOWLIST${custom}`;
}

async function orgAllowsDomain(q: Queryable, orgId: string, host: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM servicenow_instance_domains WHERE org_id = $1 AND host = $2', [orgId, host]);
  return rows.length > 0;
}

/** Records a custom ServiceNow instance domain the organization allows (in the save's transaction). */
export async function recordInstanceDomain(q: Queryable, orgId: string, host: string, now: Date): Promise<void> {
  await q.query('INSERT INTO servicenow_instance_domains (org_id, host, created_at) VALUES ($1, $2, $3) ON CONFLICT (org_id, host) DO NOTHING', [orgId, host, now]);
}

/** Rule 1 for one value; returns the host when it is a custom domain allowed by this request. */
async function checkHost(ctx: AppContext, f: BoundUrlField, url: URL, c: AddressChange): Promise<string | null> {
  const host = bareHost(url);
  const allowlist = new Allowlist(ctx.config.destinationAllowlist);
  if (!f.hosts || allowlist.hasHost(host) || allowlist.hasAddress(host)) return null;
  if (url.protocol === 'https:' && url.port === '' && onTable(f.hosts, host)) return null;
  if (f.hosts.orgAllowance) {
    if (c.customInstanceDomain?.toLowerCase().replace(/\.$/, '') === host) return host;
    if (await orgAllowsDomain(ctx.db, c.orgId, host)) return null;
  }
  throw invalidInput(hostMessage(f, f.hosts));
}

/** Rule 2: the safety rules; a new or moved address is resolved (refused without an answer when it carries a credential). */
async function checkSafety(ctx: AppContext, f: BoundUrlField, value: string, fresh: boolean): Promise<void> {
  try {
    // A field that carries a credential — or is one (a chat webhook URL) — must resolve now.
    const carries = f.credentials.length > 0 || f.field.startsWith('credentials.');
    if (fresh) await checkDestinationUrlResolved(ctx, value, f.field, { unresolved: carries ? 'refuse' : 'accept' });
    else checkDestinationUrl(value, new Allowlist(ctx.config.destinationAllowlist), f.field);
  } catch (err) {
    if (err instanceof UnsafeDestinationError) throw invalidInput(err.message);
    throw err;
  }
}

function credentialsMessage(f: BoundUrlField, names: readonly string[]): string {
  const plural = names.length > 1 || names[0] === 'credentials';
  return `${names.join(' and ')} ${plural ? 'are' : 'is'} required with a change of ${f.field} (the stored credentials are never sent to a new address)`;
}

/**
 * Applies the rule to a save. Returns the custom ServiceNow domain to record with it (the caller
 * writes it with recordInstanceDomain in the save's transaction), or null.
 */
export async function checkCredentialAddresses(ctx: AppContext, c: AddressChange): Promise<{ allowDomain: string | null }> {
  let allowDomain: string | null = null;
  for (const f of CREDENTIAL_ORIGINS[c.subject]) {
    const to = addressOf(f, c.after);
    const moved = c.before !== null && addressOf(f, c.before) !== to;
    // Removing an address sends the credential nowhere new.
    if (moved && to !== null && !c.credentialsGiven) {
      const kept = f.credentials.filter((name) => c.storedCredentials.includes(name));
      if (kept.length > 0) throw invalidInput(credentialsMessage(f, kept));
    }
    const value = valueAt(c.after, f.field);
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalidInput(`${f.field} must be a string`);
    if (!URL.canParse(value)) throw invalidInput(`${f.field} must be an absolute https URL`);
    allowDomain = (await checkHost(ctx, f, new URL(value), c)) ?? allowDomain;
    await checkSafety(ctx, f, value, c.before === null || moved);
  }
  checkAllowanceRequest(c, allowDomain);
  return { allowDomain };
}

/** `customInstanceDomain` is the host of a ServiceNow instance URL that needs it, given with the credentials. */
function checkAllowanceRequest(c: AddressChange, allowDomain: string | null): void {
  if (c.customInstanceDomain === undefined) return;
  if (c.subject !== 'servicenow') throw invalidInput(`body: "customInstanceDomain" is used only by servicenow destinations`);
  if (!c.credentialsGiven) {
    throw invalidInput('credentials.username and credentials.password are required with "customInstanceDomain" (an owner allows a custom domain together with the credentials)');
  }
  if (allowDomain === null) {
    throw invalidInput('body: "customInstanceDomain" must be the host of config.instanceUrl, and only for a host outside *.service-now.com');
  }
}
