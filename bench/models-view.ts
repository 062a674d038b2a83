/**
 * `npm run bench -- models-view`: the console's semantic-models view (GET …/semantic-models,
 * listMonitoredSemanticModels) on an enterprise tenant's lineage (200,000 models in 50,000
 * workspaces), on PostgreSQL and on PGlite: pages of 100 at the start, the middle and the end and a
 * name search, against the unpaged view (every model, sorted in the process) measured in the same
 * run, so the ratio is of one machine at one time.
 */
import { createPgDatabase } from '../src/db/pg.js';
import { createPgliteDatabase } from '../src/db/pglite.js';
import type { Database } from '../src/db/index.js';
import { migrate } from '../src/db/index.js';
import { listMonitoredSemanticModels } from '../src/monitoring/sources/inventory/inventory-views.js';
import { createScratchDatabase, machine, median } from './kit.js';
import { writeResultsSection } from './results-file.js';

/** The enterprise tenant's size, on both engines. */
const SIZE = { models: 200_000, workspaces: 50_000 };
const CAPACITIES = 40;
const RUNS = 5;

const PAGE = 100;

/** The view's statement before paging (migration 360's indexes in place). */
const UNPAGED = `SELECT l.item_id, l.item_name, l.tenant_ref, t.name AS tenant_name, l.workspace_id, w.name AS workspace_name,
       l.capacity_id, c.value->>'name' AS capacity_name, l.gateway_ids
  FROM monitored_lineage l
  JOIN tenants t ON t.id = l.tenant_ref
  LEFT JOIN workspaces w ON w.org_id = t.org_id AND lower(w.remote_id) = l.workspace_id
  LEFT JOIN collector_state c ON c.tenant_ref = l.tenant_ref AND c.collector = 'capacity' AND lower(c.key) = l.capacity_id
 WHERE t.org_id = $1 AND l.item_type = 'SemanticModel'`;

async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** The enterprise tenant's lineage, inventory workspaces and capacity names, in a migrated database. */
async function seed(db: Database, now: Date, size: { models: number; workspaces: number }): Promise<void> {
  await db.query("INSERT INTO orgs (id, name, created_at, updated_at) VALUES ('org_bench', 'Bench', $1, $1)", [now]);
  await db.query(
    `INSERT INTO tenants (id, org_id, name, tenant_id, client_id, credential_type, credentials_sealed, mode, endpoints, created_at, updated_at)
     VALUES ('tnt_bench', 'org_bench', 'Enterprise', md5('t'), md5('c'), 'secret', 'x', 'admin', '{}', $1, $1)`,
    [now],
  );
  // Workspace ids as the inventory stores them (upper case), the lineage's in lower case.
  await db.query(
    `INSERT INTO workspaces (org_id, remote_id, name, capacity_name)
     SELECT 'org_bench', upper(md5('ws' || g)), 'Workspace ' || g, NULL FROM generate_series(1, ${size.workspaces}) g`,
  );
  await db.query(
    `INSERT INTO collector_state (tenant_ref, collector, key, value, updated_at)
     SELECT 'tnt_bench', 'capacity', upper(md5('cap' || g)), jsonb_build_object('name', 'Capacity ' || g), $1 FROM generate_series(1, ${CAPACITIES}) g`,
    [now],
  );
  await db.query(
    `INSERT INTO monitored_lineage (tenant_ref, item_id, item_type, item_name, workspace_id, capacity_id, updated_at)
     SELECT 'tnt_bench', md5('m' || g), 'SemanticModel', 'Model ' || g, md5('ws' || (1 + g % ${size.workspaces})), md5('cap' || (1 + g % ${CAPACITIES})), $1
       FROM generate_series(1, ${size.models}) g`,
    [now],
  );
}

/** The view before paging (one statement for every model, sorted in the process): the baseline. */
async function unpagedView(db: Database): Promise<number> {
  const { rows } = await db.query<{ item_name: string; item_id: string }>(UNPAGED, ['org_bench']);
  rows.sort((a, b) => a.item_name.localeCompare(b.item_name) || a.item_id.localeCompare(b.item_id));
  return rows.length;
}

type Measures = Record<'unpaged' | 'first' | 'middle' | 'last' | 'search', number[]>;

/** The unpaged baseline, then pages of 100 at the start, the middle and the end, and a name search. */
async function measure(db: Database, models: number): Promise<Measures> {
  const count = await unpagedView(db);
  if (count !== models) throw new Error(`the view lost rows: ${count} of ${models}`);
  const at = async (offset: number) => {
    const row = (await db.query<{ item_name: string; item_id: string }>(
      `SELECT item_name, item_id FROM monitored_lineage ORDER BY item_name COLLATE "C", item_id OFFSET $1 LIMIT 1`,
      [offset],
    )).rows[0]!;
    return { name: row.item_name, id: row.item_id, tenantRef: 'tnt_bench' };
  };
  const middle = await at(Math.floor(models / 2));
  const last = await at(models - 50);
  const page = (after: Awaited<ReturnType<typeof at>> | null, search: string | null = null) => async () => {
    const p = await listMonitoredSemanticModels(db, 'org_bench', { limit: PAGE, after, search });
    if (p.items.length === 0) throw new Error('an empty page');
  };
  return {
    unpaged: await timed(() => unpagedView(db)),
    first: await timed(page(null)),
    middle: await timed(page(middle)),
    last: await timed(page(last)),
    search: await timed(page(null, 'model 1999')),
  };
}

async function onPostgres(now: Date): Promise<Measures> {
  const scratch = await createScratchDatabase();
  const db = createPgDatabase(scratch.url);
  try {
    await migrate(db);
    await seed(db, now, SIZE);
    // A server's autovacuum has analyzed such tables by the time anyone looks.
    await db.exec('ANALYZE');
    return await measure(db, SIZE.models);
  } finally {
    await db.close();
    await scratch.drop();
  }
}

/** The embedded engine as `npm start` runs it: no autovacuum, so no statistics. */
async function onPglite(now: Date): Promise<Measures> {
  const db = await createPgliteDatabase();
  try {
    await migrate(db);
    await seed(db, now, SIZE);
    return await measure(db, SIZE.models);
  } finally {
    await db.close();
  }
}

export async function runModelsViewBench(): Promise<void> {
  const now = new Date();
  const pg = await onPostgres(now);
  const lite = await onPglite(now);
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
  const rows = (engine: string, m: Measures) =>
    (
      [
        ['the first page', m.first],
        ['a page in the middle', m.middle],
        ['the last page', m.last],
        ['a name search ("model 1999")', m.search],
      ] as const
    )
      .map(([label, xs]) => `| ${engine}: ${label} | ${ms(xs)} | ${ms(m.unpaged)} | ${(median(m.unpaged) / median(xs)).toFixed(0)}x |`)
      .join('\n');
  const section = `## Semantic-models view

Measured ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}.
Command: \`npm run bench -- models-view\`. One tenant on ${CAPACITIES} capacities with ${SIZE.models.toLocaleString('en')} semantic models in
${SIZE.workspaces.toLocaleString('en')} workspaces, on PostgreSQL (analyzed, as autovacuum leaves it) and on PGlite (as \`npm start\`
runs it: no statistics); median of ${RUNS} runs each. A page is what GET …/semantic-models answers (\`limit\` ${PAGE}: the
lineage rows with workspace and capacity names, the page's gateway names and open incidents). The baseline, measured in the same
run, is the view before paging: one statement for every model, sorted by name in the process.

| Measure | Paged view | Unpaged baseline | Ratio |
|---|---|---|---|
${rows('PostgreSQL', pg)}
${rows('PGlite', lite)}

Target: the view ≤ 200 ms at 200,000 models.

How: each tenant connection of the organization reads only its next rows from an index on
(tenant, type, name, id) (migration 390), starting after the page's cursor, so a page costs the same
at any depth and any size; the workspace and capacity joins, gateway names and open incidents are
read for the page's rows only. A name search reads the names until it has a page of matches, so a
rare word costs a scan of the tenant's names (still under the target here). The first page starts
from an empty cursor so the embedded engine, which keeps no statistics, takes the same range read.
`;
  writeResultsSection('bench/RESULTS.md', 'Semantic-models view', section);
  process.stdout.write(section);
}
