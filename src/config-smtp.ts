/**
 * The instance's SMTP relay for `email` destinations (docs/notifications.md, "E-mail"):
 *   VIGIA_SMTP_URL   smtp://user:password@host:587 (STARTTLS required) or smtps://…:465 (implicit TLS);
 *                    `?starttls=opportunistic` lets smtp:// go on in clear text when the relay offers no STARTTLS
 *                    (a local relay or sink only). User and password are percent-decoded.
 *   VIGIA_SMTP_FROM  the sender address of every message, e.g. `Vigia <alertas@example.com>`.
 *   VIGIA_SMTP_MAX_CONNECTIONS  connections in the pool (default 1).
 * OAuth instead of a password (XOAUTH2, what Microsoft 365 asks for once basic authentication is
 * off): `?auth=oauth2` on the URL, the mailbox as its user and no password, and the Entra ID app
 * that may send as it (client credentials):
 *   VIGIA_SMTP_OAUTH_TENANT_ID, VIGIA_SMTP_OAUTH_CLIENT_ID, VIGIA_SMTP_OAUTH_CLIENT_SECRET,
 *   VIGIA_SMTP_OAUTH_AUTHORITY (default https://login.microsoftonline.com; a sovereign cloud's),
 *   VIGIA_SMTP_OAUTH_SCOPE (default https://outlook.office365.com/.default).
 * The password and the client secret never leave this object: no log line, error or response carries them.
 */
export interface SmtpConfig {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte (implicit TLS). */
  secure: boolean;
  /** smtp://: STARTTLS must be offered and used ('required', default) or is used when offered. */
  starttls: 'required' | 'opportunistic';
  auth: SmtpPasswordAuth | SmtpOAuth | null;
  /** The From header, as configured. */
  from: string;
  /** The bare address of `from` (its domain names Message-IDs). */
  fromAddress: string;
  maxConnections: number;
}

export interface SmtpPasswordAuth {
  kind: 'password';
  user: string;
  pass: string;
}

/** XOAUTH2 with a token of an Entra ID app (client credentials) for the mailbox `user`. */
export interface SmtpOAuth {
  kind: 'oauth2';
  user: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  authorityHost: string;
  scope: string;
}

export const SMTP_OAUTH_DEFAULTS = { authorityHost: 'https://login.microsoftonline.com', scope: 'https://outlook.office365.com/.default' } as const;

export class SmtpConfigError extends Error {}

/** A plain address: local part, @, a domain of dot-separated labels (at least two). */
export const EMAIL_ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** `Name <addr>` or `addr` → the address, or null when it is not one. */
export function addressOf(from: string): string | null {
  const m = /^\s*(?:"?([^"<>\r\n]*)"?\s*)?<([^<>\s]+)>\s*$/.exec(from);
  const address = m ? m[2]! : from.trim();
  return EMAIL_ADDRESS.test(address) ? address : null;
}

function positiveInt(raw: string | undefined, name: string, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new SmtpConfigError(`${name} must be an integer from 1 to ${max}`);
  return n;
}

/** The OAuth settings of `?auth=oauth2`: the mailbox from the URL, the Entra ID app from the environment. */
function oauthOf(env: NodeJS.ProcessEnv, user: string, pass: string): SmtpOAuth {
  if (!user || !EMAIL_ADDRESS.test(user)) throw new SmtpConfigError('VIGIA_SMTP_URL with auth=oauth2 must name the mailbox as its user, e.g. smtp://alertas%40contoso.com@smtp.office365.com:587?auth=oauth2');
  if (pass) throw new SmtpConfigError('VIGIA_SMTP_URL with auth=oauth2 takes no password: the token comes from VIGIA_SMTP_OAUTH_CLIENT_ID and VIGIA_SMTP_OAUTH_CLIENT_SECRET');
  const need = (name: string): string => {
    const v = env[name]?.trim();
    if (!v) throw new SmtpConfigError(`${name} is required with VIGIA_SMTP_URL …?auth=oauth2`);
    return v;
  };
  const tenantId = need('VIGIA_SMTP_OAUTH_TENANT_ID');
  if (!/^[A-Za-z0-9.-]{1,100}$/.test(tenantId)) throw new SmtpConfigError('VIGIA_SMTP_OAUTH_TENANT_ID must be a tenant id (a GUID) or a domain');
  const clientId = need('VIGIA_SMTP_OAUTH_CLIENT_ID');
  const clientSecret = need('VIGIA_SMTP_OAUTH_CLIENT_SECRET');
  const authorityHost = env.VIGIA_SMTP_OAUTH_AUTHORITY?.trim() || SMTP_OAUTH_DEFAULTS.authorityHost;
  let authority: URL;
  try {
    authority = new URL(authorityHost);
  } catch {
    throw new SmtpConfigError('VIGIA_SMTP_OAUTH_AUTHORITY must be an https:// URL, e.g. https://login.microsoftonline.com');
  }
  if (authority.protocol !== 'https:' || authority.pathname.replace(/\/$/, '') !== '' || authority.search) {
    throw new SmtpConfigError('VIGIA_SMTP_OAUTH_AUTHORITY must be an https:// origin, e.g. https://login.microsoftonline.com');
  }
  const scope = env.VIGIA_SMTP_OAUTH_SCOPE?.trim() || SMTP_OAUTH_DEFAULTS.scope;
  if (!/^https:\/\/\S+\/\.default$/.test(scope)) throw new SmtpConfigError('VIGIA_SMTP_OAUTH_SCOPE must be a resource followed by /.default, e.g. https://outlook.office365.com/.default');
  return { kind: 'oauth2', user, tenantId, clientId, clientSecret, authorityHost: authority.origin, scope };
}

/** Reads the relay settings; undefined when VIGIA_SMTP_URL is unset (e-mail destinations then wait with an error). */
export function loadSmtpConfig(env: NodeJS.ProcessEnv): SmtpConfig | undefined {
  const raw = env.VIGIA_SMTP_URL;
  if (raw === undefined || raw === '') {
    if (env.VIGIA_SMTP_FROM) throw new SmtpConfigError('VIGIA_SMTP_FROM is set but VIGIA_SMTP_URL is not');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Never echo the value: it may hold the password.
    throw new SmtpConfigError('VIGIA_SMTP_URL must be a URL like smtp://user:password@host:587 or smtps://user:password@host:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new SmtpConfigError('VIGIA_SMTP_URL must start with smtp:// (STARTTLS) or smtps:// (implicit TLS)');
  if (!url.hostname) throw new SmtpConfigError('VIGIA_SMTP_URL must name the relay host');
  const secure = url.protocol === 'smtps:';
  const mode = url.searchParams.get('starttls') ?? 'required';
  if (mode !== 'required' && mode !== 'opportunistic') throw new SmtpConfigError('VIGIA_SMTP_URL: starttls must be required or opportunistic');
  const unknown = [...url.searchParams.keys()].find((k) => k !== 'starttls' && k !== 'auth');
  if (unknown !== undefined) throw new SmtpConfigError(`VIGIA_SMTP_URL: unknown parameter "${unknown}" (known: starttls, auth)`);
  const authMode = url.searchParams.get('auth') ?? 'password';
  if (authMode !== 'password' && authMode !== 'oauth2') throw new SmtpConfigError('VIGIA_SMTP_URL: auth must be password or oauth2');
  const from = env.VIGIA_SMTP_FROM ?? '';
  const fromAddress = addressOf(from);
  if (!fromAddress) throw new SmtpConfigError('VIGIA_SMTP_FROM must be a sender address, e.g. "Vigia <alertas@example.com>"');
  let user = '';
  let pass = '';
  try {
    user = decodeURIComponent(url.username);
    pass = decodeURIComponent(url.password);
  } catch {
    throw new SmtpConfigError('VIGIA_SMTP_URL: user or password is not valid percent-encoding');
  }
  const auth: SmtpConfig['auth'] = authMode === 'oauth2' ? oauthOf(env, user, pass) : user ? { kind: 'password', user, pass } : null;
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    starttls: mode,
    auth,
    from,
    fromAddress,
    maxConnections: positiveInt(env.VIGIA_SMTP_MAX_CONNECTIONS, 'VIGIA_SMTP_MAX_CONNECTIONS', 1, 50),
  };
}
