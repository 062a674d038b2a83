/**
 * `npm run bench -- models-view`: the console's semantic-models view (GET …/semantic-models,
 * listMonitoredSemanticModels) on an enterprise tenant's lineage on PostgreSQL (200,000 models in
 * 50,000 workspaces), and on PGlite without statistics at the size it was seen slow (3,301 models). Measured with migration 360's expression indexes and,
 * in the same run, without them (dropped), so the ratio is of one machine at one time. Both the
 * view's join statement alone and the whole call (rows, gateway names, open incidents, sorting).
 */
import { createPgDatabase } from '../src/db/pg.js';
import { createPgliteDatabase } from '../src/db/pglite.js';
import type { Database } from '../src/db/index.js';
import { migrate } from '../src/db/index.js';
import { listMonitoredSemanticModels } from '../src/monitoring/sources/inventory/inventory-views.js';
import { createScratchDatabase, machine, median } from './kit.js';
import { writeResultsSection } from './results-file.js';

/** The enterprise tenant's size on PostgreSQL, and on PGlite the size at which the view was seen taking 9–16 s. */
const SIZES = { pg: { models: 200_000, workspaces: 50_000 }, pglite: { models: 3_301, workspaces: 3_000 } };
const CAPACITIES = 40;
const RUNS = 5;

const JOIN = `SELECT count(*)::int AS n, count(w.name)::int AS named, count(c.value)::int AS placed
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

/** The join and the whole call, with migration 360's indexes and then without them. */
async function measure(db: Database, models: number): Promise<Record<'withJoin' | 'withView' | 'withoutJoin' | 'withoutView', number[]>> {
  const check = (await db.query<{ n: number; named: number; placed: number }>(JOIN, ['org_bench'])).rows[0]!;
  if (check.n !== models || check.named !== models || check.placed !== models) throw new Error(`the join lost rows: ${JSON.stringify(check)}`);
  const withJoin = await timed(() => db.query(JOIN, ['org_bench']));
  const withView = await timed(() => listMonitoredSemanticModels(db, 'org_bench'));
  await db.exec('DROP INDEX workspaces_org_lower_remote_id; DROP INDEX collector_state_capacity_lower_key');
  const withoutJoin = await timed(() => db.query(JOIN, ['org_bench']));
  const withoutView = await timed(() => listMonitoredSemanticModels(db, 'org_bench'));
  return { withJoin, withView, withoutJoin, withoutView };
}

export async function runModelsViewBench(): Promise<void> {
  const now = new Date();
  const scratch = await createScratchDatabase();
  const pgDb = createPgDatabase(scratch.url);
  let pg: Awaited<ReturnType<typeof measure>>;
  try {
    await migrate(pgDb);
    await seed(pgDb, now, SIZES.pg);
    // A server's autovacuum has analyzed such tables by the time anyone looks.
    await pgDb.exec('ANALYZE');
    pg = await measure(pgDb, SIZES.pg.models);
  } finally {
    await pgDb.close();
    await scratch.drop();
  }
  // The embedded engine as `npm start` runs it: no autovacuum, so no statistics.
  const liteDb = await createPgliteDatabase();
  let lite: Awaited<ReturnType<typeof measure>>;
  try {
    await migrate(liteDb);
    await seed(liteDb, now, SIZES.pglite);
    lite = await measure(liteDb, SIZES.pglite.models);
  } finally {
    await liteDb.close();
  }
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
  const row = (label: string, w: number[], wo: number[]) => `| ${label} | ${ms(w)} | ${ms(wo)} | ${(median(wo) / median(w)).toFixed(1)}x |`;
  const section = `## Semantic-models view

Measured ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}.
Command: \`npm run bench -- models-view\`. One tenant on ${CAPACITIES} capacities: on PostgreSQL ${SIZES.pg.models.toLocaleString('en')} semantic models in
${SIZES.pg.workspaces.toLocaleString('en')} workspaces, on PGlite ${SIZES.pglite.models.toLocaleString('en')} in ${SIZES.pglite.workspaces.toLocaleString('en')}; median of ${RUNS} runs each; with migration 360's expression indexes, then without them (dropped, same run).
The join statement is the view's own (workspace and capacity by lower-cased id); the whole call also reads gateway names and
open incidents and sorts by name in the process. PostgreSQL analyzed (as autovacuum leaves it); PGlite as \`npm start\` runs
it, without statistics (the planner then joined every model with every workspace: the 9–16 s seen for 3,301 models).

| Measure | With the indexes | Without | Ratio |
|---|---|---|---|
${row('PostgreSQL: the join statement', pg.withJoin, pg.withoutJoin)}
${row('PostgreSQL: the whole call (200,000 rows out)', pg.withView, pg.withoutView)}
${row('PGlite: the join statement', lite.withJoin, lite.withoutJoin)}
${row('PGlite: the whole call', lite.withView, lite.withoutView)}

Target: the view ≤ 200 ms at 200,000 models.
`;
  writeResultsSection('bench/RESULTS.md', 'Semantic-models view', section);
  process.stdout.write(section);
}
