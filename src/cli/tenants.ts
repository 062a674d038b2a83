/**
 * `vigia tenants …`: the tenant connections of an organization through the admin API (list,
 * show, add, set-credentials, check, run-now, remove), with the admin token like `vigia demo --url`. A client
 * secret or private key is read from a file or stdin, never from the command line (where `ps`
 * and shell history would keep it), and nothing printed ever contains it.
 */
import { readFile } from 'node:fs/promises';
import { adminCall, CliError, type AdminTarget } from './admin-target.js';
import type { Texts } from '../monitoring/messages/fixes.js';
import { cliTexts, type CliLang } from './tenant-texts.js';
import { listLines, showLines, type TenantView } from './tenant-show.js';

export { rotationText, scanText } from './tenant-show.js';

type Out = (line: string) => void;

interface CheckResult {
  ok: boolean;
  checks: Array<{ id: string; ok: boolean; title: Texts; fix: Texts | null; detail?: string; detailText?: Texts; cause?: string }>;
  fixes: Array<{ fix: Texts; items: string[] }>;
}

const tenantsPath = (orgId: string) => `/orgs/${encodeURIComponent(orgId)}/tenants`;
const tenantPath = (orgId: string, id: string) => `${tenantsPath(orgId)}/${encodeURIComponent(id)}`;

export async function listTenants(target: AdminTarget, orgId: string, out: Out, json = false, lang: CliLang = 'en'): Promise<void> {
  const { value } = await adminCall<{ value: TenantView[] }>(target, 'GET', tenantsPath(orgId));
  if (json) return out(JSON.stringify(value, null, 2));
  for (const line of listLines(value, lang)) out(line);
}

export async function showTenant(target: AdminTarget, orgId: string, id: string, out: Out, json = false, lang: CliLang = 'en'): Promise<void> {
  const t = await adminCall<TenantView>(target, 'GET', tenantPath(orgId, id));
  if (json) return out(JSON.stringify(t, null, 2));
  for (const line of showLines(t, lang)) out(line);
}

export interface AddOptions {
  file?: string;
  name?: string;
  tenantId?: string;
  clientId?: string;
  mode?: string;
  workspace?: string[];
  costScope?: string[];
  /** One origin for all four endpoints (the simulator, a sovereign cloud's single gateway). */
  endpoint?: string;
  /** `name=seconds` or `name=off`. */
  collector?: string[];
  clientSecretFile?: string;
  clientSecretStdin?: boolean;
  certificateFile?: string;
  privateKeyFile?: string;
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function parseCollectors(specs: string[]): Record<string, { enabled: boolean; intervalSeconds?: number }> {
  const collectors: Record<string, { enabled: boolean; intervalSeconds?: number }> = {};
  for (const spec of specs) {
    const m = /^([a-z]+)=(off|on|\d+)$/.exec(spec);
    if (!m) throw new CliError(`--collector ${spec}: expected name=seconds, name=on or name=off (e.g. gateway=300)`);
    const [, name, value] = m;
    collectors[name!] = value === 'off' ? { enabled: false } : value === 'on' ? { enabled: true } : { enabled: true, intervalSeconds: Number(value) };
  }
  return collectors;
}

export type CredentialOptions = Pick<AddOptions, 'clientSecretFile' | 'clientSecretStdin' | 'certificateFile' | 'privateKeyFile'>;

/** The credentials the flags name, read from a file or stdin (never argv); undefined when none is named. */
async function readCredentials(opts: CredentialOptions, stdin: NodeJS.ReadableStream): Promise<Record<string, string> | undefined> {
  const sources = [opts.clientSecretFile, opts.clientSecretStdin, opts.certificateFile || opts.privateKeyFile].filter(Boolean).length;
  if (sources > 1) throw new CliError('give one credential: --client-secret-file, --client-secret-stdin, or --certificate-file with --private-key-file');
  if (opts.clientSecretFile || opts.clientSecretStdin) {
    const secret = (opts.clientSecretFile ? await readFile(opts.clientSecretFile, 'utf8') : await readStdin(stdin)).trim();
    if (!secret) throw new CliError('the client secret read is empty');
    return { clientSecret: secret };
  }
  if (opts.certificateFile || opts.privateKeyFile) {
    if (!opts.certificateFile || !opts.privateKeyFile) throw new CliError('--certificate-file and --private-key-file go together');
    return { certificatePem: await readFile(opts.certificateFile, 'utf8'), privateKeyPem: await readFile(opts.privateKeyFile, 'utf8') };
  }
  return undefined;
}

/** The request body: the JSON file first, the flags over it, the credentials from a file or stdin. */
export async function buildTenantBody(opts: AddOptions, stdin: NodeJS.ReadableStream): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  if (opts.file) {
    try {
      body = JSON.parse(await readFile(opts.file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new CliError(`--file ${opts.file}: ${(err as Error).message}`);
    }
  }
  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  set('name', opts.name);
  set('tenantId', opts.tenantId);
  set('clientId', opts.clientId);
  set('mode', opts.mode);
  if (opts.workspace?.length) body.workspaces = opts.workspace;
  if (opts.costScope?.length) body.costScopes = opts.costScope;
  if (opts.endpoint) body.endpoints = { authorityHost: opts.endpoint, powerBi: opts.endpoint, fabric: opts.endpoint, arm: opts.endpoint };
  if (opts.collector?.length) body.collectors = { ...(body.collectors as object | undefined), ...parseCollectors(opts.collector) };

  const credentials = await readCredentials(opts, stdin);
  if (credentials) body.credentials = credentials;
  const missing = ['name', 'tenantId', 'clientId', 'mode', 'credentials'].filter((k) => body[k] === undefined);
  if (missing.length) {
    const flags: Record<string, string> = {
      name: '--name',
      tenantId: '--tenant-id',
      clientId: '--client-id',
      mode: '--mode admin|member',
      credentials: '--client-secret-stdin, --client-secret-file or --certificate-file/--private-key-file',
    };
    throw new CliError(`missing: ${missing.map((k) => flags[k]).join('; ')} (or put them in --file)`);
  }
  return body;
}

/**
 * `vigia tenants add` (or `connect`): the connection is saved, and the server's answer carries the
 * token endpoint's verdict on the credentials, printed like a check. Resolves false when the
 * credentials got no token (the command then exits 1): the connection is saved anyway, and said.
 */
export async function addTenant(target: AdminTarget, orgId: string, opts: AddOptions, stdin: NodeJS.ReadableStream, out: Out, lang: CliLang = 'en'): Promise<boolean> {
  const x = cliTexts(lang);
  const body = await buildTenantBody(opts, stdin);
  const t = await adminCall<TenantView & { credentialCheck?: CheckResult }>(target, 'POST', tenantsPath(orgId), body);
  out(x.connected(t.name, t.id, t.mode, t.credentialType));
  out(`  ${x.collectors}: ${t.collectors.filter((c) => c.enabled).map((c) => x.every(c.name, c.intervalSeconds)).join(', ') || x.none}`);
  const verdict = t.credentialCheck;
  if (verdict) printChecks(verdict, out, lang);
  if (verdict && !verdict.ok) {
    out(x.signInFailed);
    return false;
  }
  if (verdict) out(x.signInOk);
  out(`  ${x.next}: vigia tenants check ${t.id} --org ${orgId}${lang === 'pt-BR' ? ' --lang pt-BR' : ''}`);
  return true;
}

/**
 * `vigia tenants set-credentials <id>`: new credentials through the admin API's PATCH (the one
 * path that replaces them), then the check's verdict. They are saved even when the check fails
 * (the command says so and exits 1): a secret may be valid before Entra ID says so everywhere.
 */
export async function setCredentials(target: AdminTarget, orgId: string, id: string, opts: CredentialOptions, stdin: NodeJS.ReadableStream, out: Out, lang: CliLang = 'en'): Promise<boolean> {
  const x = cliTexts(lang);
  const credentials = await readCredentials(opts, stdin);
  if (!credentials) throw new CliError('give the new credential: --client-secret-stdin, --client-secret-file, or --certificate-file with --private-key-file');
  const t = await adminCall<TenantView>(target, 'PATCH', tenantPath(orgId, id), { credentials });
  out(x.savedCredentials(t.name, t.id, t.credentialType));
  const ok = await checkTenant(target, orgId, id, out, lang);
  if (!ok) out(x.savedAnyway);
  return ok;
}

/** MISSING is access to grant; a failure that is not about access says so. */
function label(cause: string | undefined, lang: CliLang): string {
  const x = cliTexts(lang);
  if (cause === 'throttled') return x.busy;
  if (cause && CONNECTION_CAUSES.has(cause)) return x.failed;
  return x.missing;
}
const CONNECTION_CAUSES = new Set(['blocked', 'tls_untrusted', 'tls_hostname', 'tls_expired', 'dns', 'refused', 'timeout', 'reset', 'other']);

/** Prints each check; resolves false when something is missing (the command then exits 1). */
export async function checkTenant(target: AdminTarget, orgId: string, id: string, out: Out, lang: CliLang = 'en'): Promise<boolean> {
  const res = await adminCall<CheckResult>(target, 'POST', `${tenantPath(orgId, id)}/check`);
  printChecks(res, out, lang);
  const x = cliTexts(lang);
  out(res.ok ? x.allInPlace : x.somethingMissing);
  return res.ok;
}

/** Each item with its label, title and detail in the chosen language, then each fix once with the items it covers. */
function printChecks(res: CheckResult, out: Out, lang: CliLang): void {
  const x = cliTexts(lang);
  for (const c of res.checks) {
    const detail = c.detailText?.[lang] ?? c.detail;
    out(`${c.ok ? x.ok : label(c.cause, lang)} ${c.id}: ${c.title[lang]}${detail ? ` (${detail})` : ''}`);
  }
  // A refused secret fails every token and probe: one fix.
  for (const g of res.fixes) out(`${x.fix} (${g.items.join(', ')}): ${g.fix[lang]}`);
}

export async function runNow(target: AdminTarget, orgId: string, id: string, collector: string, out: Out): Promise<void> {
  const res = await adminCall<{ nextRunAt: string }>(target, 'POST', `${tenantPath(orgId, id)}/collectors/${encodeURIComponent(collector)}/run`);
  out(`${collector} of ${id} is due now (${res.nextRunAt}); the next free instance runs it`);
}

export async function removeTenant(target: AdminTarget, orgId: string, id: string, out: Out): Promise<void> {
  await adminCall(target, 'DELETE', tenantPath(orgId, id));
  out(`removed ${id}: its collectors stopped, its credentials are deleted and the incidents they opened are resolved`);
}

interface EventhouseSetup {
  outcome: 'created' | 'existing' | 'refused';
  created: string[];
  eventhouse: { queryUri: string; database: string; table: string } | null;
  eventstreamId: string | null;
  capacityIds: string[];
  refusal: { permission: string; detail: string; fix: Texts } | null;
}

/**
 * `vigia tenants utilization-setup <id> --workspace <guid>`: Vigia creates the Eventhouse, KQL
 * database, table and capacity-events Eventstream and reads that table from then on. Resolves
 * false when the principal may not (the command then exits 1), with the permission it lacks.
 */
export async function setUpUtilization(
  target: AdminTarget,
  orgId: string,
  id: string,
  opts: { workspace: string; eventhouse?: string; capacity?: string[] },
  out: Out,
  lang: 'en' | 'pt-BR' = 'en',
): Promise<boolean> {
  const body = { workspaceId: opts.workspace, ...(opts.eventhouse ? { eventhouseId: opts.eventhouse } : {}), ...(opts.capacity?.length ? { capacityIds: opts.capacity } : {}) };
  const res = await adminCall<EventhouseSetup>(target, 'POST', `${tenantPath(orgId, id)}/utilization/eventhouse`, body);
  if (res.outcome === 'refused' && res.refusal) {
    out(`refused: the service principal lacks ${res.refusal.permission} (${res.refusal.detail})`);
    out(`  fix: ${res.refusal.fix[lang]}`);
    if (res.created.length) out(`  made before the refusal: ${res.created.join(', ')}`);
    return false;
  }
  const eh = res.eventhouse!;
  out(res.outcome === 'created' ? `created ${res.created.join(', ')}` : 'everything was already in place; nothing created');
  out(`  Eventstream ${res.eventstreamId} routes the capacity overview events of ${res.capacityIds.length} capacit${res.capacityIds.length === 1 ? 'y' : 'ies'} to ${eh.database}.${eh.table}`);
  out(`  the utilization collector reads ${eh.queryUri} (database ${eh.database}, table ${eh.table})`);
  out(`  next: vigia tenants check ${id} --org ${orgId}`);
  return true;
}
