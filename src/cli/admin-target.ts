/**
 * Which running Vigia a local command talks to, and with which admin token: `--url`, else the
 * server holding the embedded data directory (its address is in the directory's lock file);
 * `--token`, else VIGIA_ADMIN_TOKEN, else the token saved in the data directory.
 */
import { readAdminTokenFile } from '../admin-api/admin-token.js';
import type { Config } from '../config.js';
import { readLockHolder } from '../db/data-dir-lock.js';
import path from 'node:path';

export class CliError extends Error {
  override name = 'CliError';
}

export interface AdminTarget {
  url: string;
  token: string;
}

export function findAdminTarget(config: Config, opts: { url?: string; token?: string }): AdminTarget {
  const url = opts.url ?? (config.databaseUrl ? undefined : readLockHolder(path.resolve(config.dataDir))?.url);
  if (!url) throw new CliError('no running Vigia found in the data directory: start it (npm start) or pass --url');
  const token = opts.token ?? config.adminToken ?? readAdminTokenFile(config.dataDir);
  if (!token) throw new CliError(`pass the admin token of ${url} with --token (or VIGIA_ADMIN_TOKEN)`);
  return { url: url.replace(/\/+$/, ''), token };
}

/** One admin API call; a non-2xx answer becomes a CliError carrying the server's message. */
export async function adminCall<T>(target: AdminTarget, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${target.url}/api/admin/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${target.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err: Error) => {
    throw new CliError(`${target.url} did not answer: ${(err.cause as Error | undefined)?.message ?? err.message}`);
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      // The API's envelope is { error: { code, message } }; older answers carried a bare string.
      const parsed = JSON.parse(text) as { message?: string; error?: string | { code?: string; message?: string } };
      const e = parsed.error;
      message = parsed.message ?? (typeof e === 'string' ? e : e?.message ? `${e.code ?? 'error'}: ${e.message}` : undefined) ?? text;
    } catch {
      // not JSON: keep the text
    }
    throw new CliError(`${method} ${route} answered ${res.status}: ${message}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}
