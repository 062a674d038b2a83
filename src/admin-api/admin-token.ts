import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from '../db/index.js';
import { generateAdminToken, hashToken } from '../secrets/tokens.js';

const SETTING = 'admin_token_hash';

/**
 * The admin token: VIGIA_ADMIN_TOKEN, when set, is the token (its hash is stored so every instance
 * agrees). Unset on first start: a token is generated and returned once for printing; only its
 * hash is stored. Later starts reuse the stored hash and return null.
 */
export async function ensureAdminToken(db: Database, configured: string | undefined): Promise<string | null> {
  if (configured) {
    await db.query(
      `INSERT INTO settings (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [SETTING, hashToken(configured)],
    );
    return null;
  }
  const token = generateAdminToken();
  const { rowCount } = await db.query(
    `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`,
    [SETTING, hashToken(token)],
  );
  return rowCount === 1 ? token : null;
}

export async function loadAdminTokenHash(db: Database): Promise<string | null> {
  const { rows } = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [SETTING]);
  return rows[0]?.value ?? null;
}

/**
 * Embedded engine: a generated admin token is also kept in VIGIA_DATA_DIR/admin-token (mode 0600,
 * next to secret.key and the database itself, which are no less secret), so local commands such
 * as `vigia demo` can call the running server without the token being retyped or printed again.
 */
export const ADMIN_TOKEN_FILE = 'admin-token';

export function saveAdminTokenFile(dataDir: string, token: string): string {
  const file = path.resolve(dataDir, ADMIN_TOKEN_FILE);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/**
 * Embedded engine, at every start: the file follows the token in force. `inForce` is the token
 * this start knows (generated now, or VIGIA_ADMIN_TOKEN): it is written to the file, replacing an
 * older one. Otherwise (no token configured, none generated) a file whose token no longer matches
 * the stored hash is removed, so no command reads a token that answers 401. Returns the file when
 * it holds the token in force, and whether a stale one was removed.
 */
export async function keepAdminTokenFile(db: Database, dataDir: string, inForce: string | null | undefined): Promise<{ file: string | null; removedStale: boolean }> {
  if (inForce) return { file: saveAdminTokenFile(dataDir, inForce), removedStale: false };
  const saved = readAdminTokenFile(dataDir);
  if (!saved) return { file: null, removedStale: false };
  if (hashToken(saved) === (await loadAdminTokenHash(db))) return { file: path.resolve(dataDir, ADMIN_TOKEN_FILE), removedStale: false };
  rmSync(path.resolve(dataDir, ADMIN_TOKEN_FILE), { force: true });
  return { file: null, removedStale: true };
}

export function readAdminTokenFile(dataDir: string): string | null {
  try {
    return readFileSync(path.resolve(dataDir, ADMIN_TOKEN_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
