/**
 * One migrated template database per engine, made once per `npm test` (vitest's global setup,
 * test/helpers/db-template-setup.ts) and copied for every test file that asks for a fresh
 * migrated database: a new PGlite database otherwise runs initdb (seconds of CPU each), and a new
 * PostgreSQL database replays every migration. The copy is the engine's own: PostgreSQL's
 * `CREATE DATABASE … TEMPLATE`, PGlite's `loadDataDir` of a data directory it dumped itself.
 *
 * A template is named by a hash of the migrations and the PGlite version, so a changed migration
 * makes a new one; without a template (a test run outside `npm test`'s setup) every database is
 * made the slow way, with the same result.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { migrate } from '../../src/db/index.js';
import { createPgDatabase } from '../../src/db/pg.js';
import { createPgliteDatabase } from '../../src/db/pglite.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cacheDir = path.join(root, 'node_modules', '.cache', 'vigia-test');

/** What the template is made of: every migration's name and text, and the embedded engine's version. */
export function templateKey(): string {
  const hash = createHash('sha256');
  const dir = path.join(root, 'src', 'db', 'migrations');
  for (const name of readdirSync(dir).sort()) hash.update(name).update('\0').update(readFileSync(path.join(dir, name)));
  const pglite = JSON.parse(readFileSync(path.join(root, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string };
  hash.update(`pglite@${pglite.version}`);
  return hash.digest('hex').slice(0, 16);
}

export function pgliteTemplateFile(key = templateKey()): string {
  return path.join(cacheDir, `pglite-${key}.tar`);
}

export function pgTemplateName(key = templateKey()): string {
  return `vigia_tpl_${key}`;
}

/** Makes the PGlite template file unless it exists (written under a temporary name, then renamed). */
export async function ensurePgliteTemplate(): Promise<string> {
  const file = pgliteTemplateFile();
  if (existsSync(file)) return file;
  mkdirSync(cacheDir, { recursive: true });
  const dataDir = mkdtempSync(path.join(cacheDir, 'build-'));
  try {
    const db = await createPgliteDatabase(dataDir);
    await migrate(db);
    await db.close();
    const lite = await PGlite.create(dataDir);
    const dump = await lite.dumpDataDir('none');
    await lite.close();
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  return file;
}

/** The PGlite template as a Blob for `loadDataDir`, or null when none was made. */
export function pgliteTemplate(): Blob | null {
  const file = pgliteTemplateFile();
  return existsSync(file) ? new Blob([readFileSync(file)]) : null;
}

/**
 * Makes the PostgreSQL template database unless it exists: migrated under a temporary name, then
 * renamed, so a template that exists is whole. Older templates of this suite are dropped.
 */
export async function ensurePgTemplate(adminUrl: string): Promise<string> {
  const name = pgTemplateName();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'vigia\\_tpl\\_%'");
    if (rows.some((r) => r.datname === name)) return name;
    // Older templates (other migrations) go, unless a run of another checkout is copying one now.
    for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname}`).catch(() => undefined);
    const building = `${name}_${process.pid}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const db = createPgDatabase(url.toString());
    await migrate(db);
    await db.close();
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.end();
  }
}

/** Whether the PostgreSQL template exists (made by the global setup of this run or an earlier one). */
export async function pgTemplateExists(admin: pg.Client): Promise<string | null> {
  const name = pgTemplateName();
  const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return rows.length > 0 ? name : null;
}
