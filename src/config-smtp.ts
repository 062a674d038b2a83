/**
 * The instance's SMTP relay for `email` destinations (docs/notifications.md, "E-mail"):
 *   VIGIA_SMTP_URL   smtp://user:password@host:587 (STARTTLS required) or smtps://…:465 (implicit TLS);
 *                    `?starttls=opportunistic` lets smtp:// go on in clear text when the relay offers no STARTTLS
 *                    (a local relay or sink only). User and password are percent-decoded.
 *   VIGIA_SMTP_FROM  the sender address of every message, e.g. `Vigia <alertas@example.com>`.
 *   VIGIA_SMTP_MAX_CONNECTIONS  connections in the pool (default 1).
 * The password never leaves this object: no log line, error or response carries it.
 */
export interface SmtpConfig {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte (implicit TLS). */
  secure: boolean;
  /** smtp://: STARTTLS must be offered and used ('required', default) or is used when offered. */
  starttls: 'required' | 'opportunistic';
  auth: { user: string; pass: string } | null;
  /** The From header, as configured. */
  from: string;
  /** The bare address of `from` (its domain names Message-IDs). */
  fromAddress: string;
  maxConnections: number;
}

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
  const unknown = [...url.searchParams.keys()].find((k) => k !== 'starttls');
  if (unknown !== undefined) throw new SmtpConfigError(`VIGIA_SMTP_URL: unknown parameter "${unknown}" (known: starttls)`);
  const from = env.VIGIA_SMTP_FROM ?? '';
  const fromAddress = addressOf(from);
  if (!fromAddress) throw new SmtpConfigError('VIGIA_SMTP_FROM must be a sender address, e.g. "Vigia <alertas@example.com>"');
  let auth: SmtpConfig['auth'] = null;
  try {
    if (url.username) auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  } catch {
    throw new SmtpConfigError('VIGIA_SMTP_URL: user or password is not valid percent-encoding');
  }
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
