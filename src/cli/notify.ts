/**
 * `vigia orgs settings` and `vigia destinations create` (docs/notifications.md): the
 * organization's message language, time zone and acknowledge-link sign-in rule, and Teams, Slack
 * and e-mail destinations, through the admin API. A webhook URL (it authorizes posting) and a
 * Slack signing secret are read from a file or stdin, never from the command line, and never
 * printed.
 */
import { readFile } from 'node:fs/promises';
import { adminCall, CliError, type AdminTarget } from './admin-target.js';

type Out = (line: string) => void;

interface OrgView {
  id: string;
  name: string;
  language: string;
  timeZone: string;
  ackRequiresSignIn: boolean;
}

export interface OrgSettingsOptions {
  language?: string;
  timeZone?: string;
  ackRequiresSignIn?: string;
  json?: boolean;
}

function onOff(value: string): boolean {
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new CliError(`--ack-requires-sign-in takes on or off, not "${value}"`);
}

/** Shows the settings; with any flag, changes those first (PATCH /orgs/{orgId}). */
export async function orgSettings(target: AdminTarget, orgId: string, opts: OrgSettingsOptions, out: Out): Promise<void> {
  const patch: Record<string, unknown> = {};
  if (opts.language !== undefined) patch.language = opts.language;
  if (opts.timeZone !== undefined) patch.timeZone = opts.timeZone;
  if (opts.ackRequiresSignIn !== undefined) patch.ackRequiresSignIn = onOff(opts.ackRequiresSignIn);
  const path = `/orgs/${encodeURIComponent(orgId)}`;
  const org = Object.keys(patch).length > 0 ? await adminCall<OrgView>(target, 'PATCH', path, patch) : await adminCall<OrgView>(target, 'GET', path);
  if (opts.json) return out(JSON.stringify({ language: org.language, timeZone: org.timeZone, ackRequiresSignIn: org.ackRequiresSignIn }, null, 2));
  out(`${org.name} (${org.id})`);
  out(`  language: ${org.language}`);
  out(`  time zone: ${org.timeZone}`);
  out(`  acknowledge links require sign-in: ${org.ackRequiresSignIn ? 'on' : 'off'}`);
}

export interface DestinationCreateOptions {
  kind: string;
  name: string;
  urlFile?: string;
  urlStdin?: boolean;
  recipient?: string[];
  signingSecretFile?: string;
  signingSecretStdin?: boolean;
  json?: boolean;
}

async function secretFrom(what: string, file: string | undefined, fromStdin: boolean | undefined, stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  if (file && fromStdin) throw new CliError(`give the ${what} in a file or on stdin, not both`);
  if (file) return (await readFile(file, 'utf8')).trim();
  if (!fromStdin) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** The admin API body of a new chat or e-mail destination. */
export async function destinationBody(opts: DestinationCreateOptions, stdin: NodeJS.ReadableStream): Promise<Record<string, unknown>> {
  if (opts.kind === 'email') {
    if (!opts.recipient?.length) throw new CliError('an e-mail destination needs --recipient (repeat for each address)');
    return { name: opts.name, kind: 'email', config: { recipients: opts.recipient } };
  }
  if (opts.kind !== 'teams' && opts.kind !== 'slack') throw new CliError(`--kind must be teams, slack or email, not "${opts.kind}"`);
  if (opts.urlStdin && opts.signingSecretStdin) throw new CliError('only one of --url-stdin and --signing-secret-stdin can read stdin');
  const url = await secretFrom('webhook URL', opts.urlFile, opts.urlStdin, stdin);
  if (!url) throw new CliError(`a ${opts.kind} destination needs its webhook URL: --url-file <file> or --url-stdin`);
  const secret = await secretFrom('signing secret', opts.signingSecretFile, opts.signingSecretStdin, stdin);
  if (secret !== undefined && opts.kind !== 'slack') throw new CliError('only a slack destination takes a signing secret');
  return { name: opts.name, kind: opts.kind, credentials: { webhookUrl: url, ...(secret ? { appSigningSecret: secret } : {}) } };
}

export async function createDestination(target: AdminTarget, orgId: string, opts: DestinationCreateOptions, stdin: NodeJS.ReadableStream, out: Out): Promise<void> {
  const body = await destinationBody(opts, stdin);
  const created = await adminCall<{ id: string; name: string; kind: string; slackRequestUrl?: string | null }>(target, 'POST', `/orgs/${encodeURIComponent(orgId)}/destinations`, body);
  if (opts.json) return out(JSON.stringify(created, null, 2));
  out(`created ${created.kind} destination ${created.name}: ${created.id}`);
  // The server's public address (VIGIA_BASE_URL), not the one this CLI reached it by.
  if (created.slackRequestUrl) out(`  Slack interactivity Request URL: ${created.slackRequestUrl}`);
}
