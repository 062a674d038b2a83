/**
 * vitest global setup: the migrated template databases every test file's fresh database is copied
 * from (test/helpers/db-template.ts). PostgreSQL's is made only when the server answers; without
 * it the pg project fails on its own, saying so, and the PGlite template still serves.
 */
import pg from 'pg';
import { ensurePgliteTemplate, ensurePgTemplate } from './db-template.js';
import { PG_ADMIN_URL } from './db.js';

async function pgAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default async function setup(): Promise<void> {
  await ensurePgliteTemplate();
  if (await pgAnswers(PG_ADMIN_URL)) await ensurePgTemplate(PG_ADMIN_URL);
}
