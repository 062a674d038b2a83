/**
 * The one human-readable block `vigia serve` prints on a terminal: where the API, its docs and the
 * console are, and where the admin token is. Off a terminal (containers, CI) only JSON log lines
 * are written, so log collectors never see free text.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN_FILE } from './admin-api/admin-token.js';
import type { Config } from './config.js';
import { defaultBaseUrl } from './config.js';

export interface BannerFacts {
  config: Config;
  /** The address actually bound (PORT=0 picks one). */
  address: string;
  engine: 'pg' | 'pglite';
  adminTokenGenerated: boolean;
  adminTokenFile: string | null | undefined;
  version: string;
}

function tokenWhereabouts(f: BannerFacts): string {
  if (f.config.adminToken) return 'the value of VIGIA_ADMIN_TOKEN';
  if (f.adminTokenGenerated) return f.adminTokenFile ? `printed above, and saved to ${f.adminTokenFile}` : 'printed above (shown once)';
  const file = path.resolve(f.config.dataDir, ADMIN_TOKEN_FILE);
  if (f.engine === 'pglite' && existsSync(file)) return `saved in ${file}`;
  return 'printed on the first start; if it is lost, see docs/operations.md';
}

export function renderBanner(f: BannerFacts): string {
  const url = new URL(f.address);
  // The configured base URL, unless it was left at its default and the port was picked at start.
  const base = f.config.baseUrl === defaultBaseUrl(f.config.host, f.config.port) ? defaultBaseUrl(f.config.host, Number(url.port)) : f.config.baseUrl;
  const lines = [
    `Vigia ${f.version} is running (${f.engine === 'pg' ? 'PostgreSQL' : `embedded database in ${path.resolve(f.config.dataDir)}`})`,
    `  Public API   ${base}/api/public/v1`,
    `  API docs     ${base}/docs`,
    `  Admin API    ${base}/api/admin/v1`,
    `  Console      ${base}/`,
    `  Admin token  ${tokenWhereabouts(f)}`,
    '  Stop with Ctrl+C.',
  ];
  return `\n${lines.join('\n')}\n\n`;
}
