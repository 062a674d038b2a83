/**
 * At start, names each setting of this process that stored tenant connections or destinations
 * need and that it lacks — one warning line per setting, with the variable to set:
 *
 * - VIGIA_DESTINATION_ALLOWLIST: a host the destination-safety rules refuse (a private or
 *   loopback address, or a name such as localhost) that the allowlist does not allow. Its
 *   collectors and deliveries would fail with `blocked` until Vigia starts with it.
 * - NODE_EXTRA_CA_CERTS: such local hosts are where the local tools run (`vigia listen`, `vigia
 *   tenant-sim`), whose certificates the local authority VIGIA_DATA_DIR/local-ca/ca.pem signs;
 *   when that authority exists and NODE_EXTRA_CA_CERTS does not include it, their TLS
 *   connections would fail with `tls_untrusted`.
 *
 * The typical case: the README's tour, stopped, then a plain `npm start`. Only stored addresses
 * are read (custom tenant endpoints and destination URLs); host names are resolved with a short
 * time limit; nothing connects anywhere. It never stops the start.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import type { AppContext } from './context.js';
import { Allowlist, isRefusedAddress, isRefusedHostName, urlHost } from './delivery/address-policy.js';
import { resolverFor } from './delivery/guarded-http.js';

export type StartSetting = 'VIGIA_DESTINATION_ALLOWLIST' | 'NODE_EXTRA_CA_CERTS';

export interface StartFinding {
  setting: StartSetting;
  /** The value to start with. */
  value: string;
  /** What needs it: `tenant "Contoso"`, `destination "my laptop"`. */
  uses: string[];
  message: string;
}

interface Target {
  use: string;
  host: string;
}

/** A name not resolved within this long counts as not local (no finding). */
const RESOLVE_MS = 2_000;
const NAMED = 5;

async function storedTargets(ctx: AppContext): Promise<Target[]> {
  const targets: Target[] = [];
  const add = (use: string, text: unknown) => {
    if (typeof text !== 'string') return;
    try {
      targets.push({ use, host: urlHost(new URL(text)).toLowerCase() });
    } catch {
      /* not a URL: the save-time rules did not let it in */
    }
  };
  const tenants = await ctx.db.query<{ name: string; endpoints: Record<string, unknown> | null }>('SELECT name, endpoints FROM tenants ORDER BY created_at, id');
  for (const t of tenants.rows) for (const url of Object.values(t.endpoints ?? {})) add(`tenant "${t.name}"`, url);
  const destinations = await ctx.db.query<{ name: string; url: string }>('SELECT name, url FROM destinations WHERE deleted_at IS NULL AND enabled AND url IS NOT NULL ORDER BY created_at, id');
  for (const d of destinations.rows) add(`destination "${d.name}"`, d.url);
  return targets;
}

/** The addresses of a name the rules would refuse (none when it is public, or not resolved in time). */
async function refusedAddresses(ctx: AppContext, host: string): Promise<string[]> {
  if (ipaddr.isValid(host)) return isRefusedAddress(host) ? [host] : [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<[]>((resolve) => (timer = setTimeout(() => resolve([]), RESOLVE_MS)));
  try {
    const addrs = await Promise.race([resolverFor(ctx)(host).catch(() => []), timeout]);
    return addrs.map((a) => a.address).filter((a) => isRefusedAddress(a));
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the rules refuse the host without an allowlist, and whether this allowlist lets it through. */
async function localHost(ctx: AppContext, host: string, allowlist: Allowlist): Promise<{ local: boolean; allowed: boolean }> {
  if (!ipaddr.isValid(host) && isRefusedHostName(host)) return { local: true, allowed: allowlist.hasHost(host) };
  const refused = await refusedAddresses(ctx, host);
  if (refused.length === 0) return { local: false, allowed: true };
  return { local: true, allowed: allowlist.hasHost(host) || refused.every((a) => allowlist.hasAddress(a)) };
}

/** The certificates of a PEM bundle, by fingerprint. */
function fingerprints(file: string): Set<string> {
  const out = new Set<string>();
  for (const pem of readFileSync(file, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    try {
      out.add(new X509Certificate(pem).fingerprint256);
    } catch {
      /* not a certificate Node can read: Node would not trust it either */
    }
  }
  return out;
}

/** Whether every certificate of the local authority's file is among NODE_EXTRA_CA_CERTS's. */
function caTrusted(caFile: string, extra: string | undefined): boolean {
  if (!extra || !existsSync(extra)) return false;
  const trusted = fingerprints(extra);
  return [...fingerprints(caFile)].every((f) => trusted.has(f));
}

const listed = (uses: string[]) => {
  const unique = [...new Set(uses)];
  return unique.length > NAMED ? `${unique.slice(0, NAMED).join(', ')} and ${unique.length - NAMED} more` : unique.join(', ');
};

/** The settings stored connections and destinations need and this process lacks. */
export async function missingStartSettings(ctx: AppContext, env: NodeJS.ProcessEnv = process.env): Promise<StartFinding[]> {
  const allowlist = new Allowlist(ctx.config.destinationAllowlist);
  const hosts = new Map<string, { local: boolean; allowed: boolean }>();
  const targets = await storedTargets(ctx);
  for (const host of new Set(targets.map((t) => t.host))) hosts.set(host, await localHost(ctx, host, allowlist));
  const findings: StartFinding[] = [];
  const blocked = targets.filter((t) => !hosts.get(t.host)!.allowed);
  if (blocked.length > 0) {
    const missing = [...new Set(blocked.map((t) => t.host))];
    const value = [...ctx.config.destinationAllowlist, ...missing].join(',');
    const uses = blocked.map((t) => t.use);
    findings.push({
      setting: 'VIGIA_DESTINATION_ALLOWLIST',
      value,
      uses: [...new Set(uses)],
      message: `${listed(uses)} use ${missing.join(', ')}, which the destination-safety rules refuse (a private or loopback address): their collectors and deliveries fail until Vigia is started with VIGIA_DESTINATION_ALLOWLIST=${value}`,
    });
  }
  const caFile = path.resolve(ctx.config.dataDir, 'local-ca', 'ca.pem');
  const local = targets.filter((t) => hosts.get(t.host)!.local);
  if (local.length > 0 && existsSync(caFile) && !caTrusted(caFile, env.NODE_EXTRA_CA_CERTS)) {
    const uses = local.map((t) => t.use);
    findings.push({
      setting: 'NODE_EXTRA_CA_CERTS',
      value: caFile,
      uses: [...new Set(uses)],
      message: `${listed(uses)} use local hosts, where the local tools (vigia listen, vigia tenant-sim) present certificates signed by ${caFile}, which this process does not trust: their TLS connections fail until Vigia is started with NODE_EXTRA_CA_CERTS=${caFile}`,
    });
  }
  return findings;
}

/** Logs one warning line per missing setting; a failure of the look itself is one line too. */
export async function warnMissingStartSettings(ctx: AppContext, env: NodeJS.ProcessEnv = process.env): Promise<StartFinding[]> {
  try {
    const findings = await missingStartSettings(ctx, env);
    for (const f of findings) ctx.log.warn({ setting: f.setting, value: f.value }, f.message);
    return findings;
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'could not check the settings stored connections and destinations need');
    return [];
  }
}
