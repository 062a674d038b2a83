/**
 * The dependency walls of Vigia, checked by `npm run walls` (dependency-cruiser) in CI:
 *   HTTP layers (src/http, src/admin-api, src/public-api routes) → domain (alerts, orgs,
 *   delivery, public queries) → outbox → db. No cycles; only src/db knows the engine.
 */
const DOMAIN = '^src/(alerts|orgs|delivery|inbound|outbox|access|public-api/queries)/';
/**
 * The rooms of src/monitoring from the bottom up (docs/architecture.md draws them): each imports
 * only the rooms below it; the files at the top of src/monitoring come above them all.
 */
const MONITORING_LAYERS = ['connection', 'platform', 'messages', 'lineage', 'changes', 'engine', 'sources'];
const WHY = {
  lineage: 'Sources write lineage and root causes; the lineage room never reads a source.',
  changes: 'The changes read from activity logs (store, join to incidents) are written by the activity source and read above it; the room never reads a source or the engine.',
  engine: 'The engine runs any collector it is given (the registry at the top of src/monitoring names them).',
};

/** One rule per monitoring room: it imports no room above it. */
function monitoringLayerRules() {
  return MONITORING_LAYERS.slice(0, -1).map((room, i) => ({
    name: `monitoring-${room}-below-${MONITORING_LAYERS.slice(i + 1).join('-')}`,
    severity: 'error',
    ...(WHY[room] ? { comment: WHY[room] } : {}),
    from: { path: `^src/monitoring/${room}/` },
    to: { path: `^src/monitoring/(${MONITORING_LAYERS.slice(i + 1).join('|')})/` },
  }));
}
/** Modules that speak HTTP: Fastify plugins, hooks, schemas, the envelope. */
const HTTP = [
  '^src/(http|admin-api|inbound-api)/',
  '^src/public-api/(index|auth|docs|paging|query-validator|schemas|windows)\\.ts$',
  '^src/public-api/routes/',
  '^src/app\\.ts$',
];

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes two modules one; split the shared part out instead.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-not-http',
      severity: 'error',
      comment: 'Domain modules throw typed domain errors (src/errors.ts); only the HTTP layer knows status codes, the envelope and Fastify.',
      from: { path: DOMAIN },
      to: { path: [...HTTP, '^node_modules/fastify/', '^node_modules/@fastify/'] },
    },
    {
      name: 'outbox-below-domain',
      severity: 'error',
      comment: 'The outbox is below the domain: it may use the database, ids and shared types, never alerts, orgs, delivery or an API.',
      from: { path: '^src/outbox/' },
      to: { path: ['^src/(alerts|orgs|delivery|access|public-api|admin-api|http)/', '^src/(app|service|context|metrics)\\.ts$'] },
    },
    {
      name: 'db-at-the-bottom',
      severity: 'error',
      comment: 'The database layer depends on nothing of ours but configuration and logging types.',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: ['^src/db/', '^src/(config|logger)\\.ts$'] },
    },
    {
      name: 'only-db-knows-the-engine',
      severity: 'error',
      comment: 'Outside src/db, use the Database interface (src/db/index.ts) and its capability flags, never an engine module or driver.',
      from: { path: '^src/', pathNot: '^src/db/' },
      to: { path: ['^src/db/(pg|pglite)\\.ts$', '^node_modules/pg/', '^node_modules/@electric-sql/pglite/'] },
    },
    {
      name: 'delivery-not-alerts',
      severity: 'error',
      comment: 'Delivery carries events out; it never changes alerts and never reaches the inbound door. The inbound door (src/inbound: acknowledgements coming back from the tools) sits above both: it changes alerts through their lifecycle and uses delivery\'s guarded client.',
      from: { path: '^src/delivery/' },
      to: { path: '^src/(alerts|inbound)/' },
    },
    {
      name: 'shared-rooms-below',
      severity: 'error',
      comment: 'src/rate-limits serves the public, admin and inbound APIs alike: it knows none of them.',
      from: { path: '^src/rate-limits/' },
      to: { path: ['^src/(public-api|admin-api|inbound-api|inbound|alerts|delivery|monitoring)/'] },
    },
    {
      name: 'public-api-not-delivery',
      severity: 'error',
      comment: 'The read-only public API never reaches into the delivery engine.',
      from: { path: '^src/public-api/' },
      to: { path: '^src/delivery/' },
    },
    {
      name: 'domain-not-apis',
      severity: 'error',
      comment: 'Domain modules never import an API layer (the arrows point from HTTP to domain).',
      from: { path: DOMAIN },
      to: { path: ['^src/admin-api/', '^src/public-api/(index|auth|docs|limits|routes/)'] },
    },
    {
      name: 'monitoring-own-room',
      severity: 'error',
      comment: 'The monitoring core (src/monitoring) feeds the domain (alert lifecycle, inventory, costs) through its functions and calls out only through the guarded client; it never imports an HTTP layer, the outbox or the dispatcher.',
      from: { path: '^src/monitoring/' },
      to: {
        path: [...HTTP, '^src/public-api/', '^src/outbox/', '^src/(app|service)\\.ts$', '^node_modules/fastify/', '^node_modules/@fastify/'],
      },
    },
    {
      name: 'monitoring-rooms-downward',
      severity: 'error',
      comment:
        'src/monitoring is a house of rooms, each importing only the rooms below it: connection (what a tenant connection is) < platform (the vendors\' APIs: client, transport, tokens, budgets, paged reads) < messages (titles and fixes) < lineage (what sources record for each other: lineage, root causes) < changes (the tenants\' changes from their activity logs and their join to incidents) < engine (collector, lease, output, first pass, rotation) < sources/<name> (one folder per source) < the files at the top of src/monitoring (scheduler, registry, the tenants service, check, removal, metrics). A source may use another source only where no cycle follows (folder-walls).',
      from: { path: '^src/monitoring/(connection|platform|messages|lineage|changes|engine|sources)/' },
      to: { path: '^src/monitoring/[^/]+\\.ts$' },
    },
    ...monitoringLayerRules(),
    {
      name: 'sources-write-through-the-commit',
      severity: 'error',
      comment:
        'A collector run reads through its Reader and writes only through its commit, after the lease fence (src/monitoring/engine/reader.ts, output.ts): a source never names the database (src/db) nor the application context that carries it (src/context.ts), so a run that lost its lease cannot write anything.',
      from: { path: '^src/monitoring/sources/' },
      to: { path: ['^src/db/', '^src/context\\.ts$'] },
    },
    {
      name: 'domain-not-monitoring',
      severity: 'error',
      comment: 'The domain and the outbox do not depend on the monitoring core; only the admin API, the service and the metrics call into it.',
      from: { path: DOMAIN },
      to: { path: '^src/monitoring/' },
    },
    {
      name: 'tenant-sim-is-a-tool',
      severity: 'error',
      comment: 'The tenant simulator stands in for the vendors (tests, demo, `vigia tenant-sim`): the service never imports it, and it uses nothing of ours but the vendor contracts, the self-signed certificate helper and the zone offsets (src/zone-offset.ts).',
      from: { path: '^src/', pathNot: ['^src/tenant-sim/', '^src/(main|demo|demo-tenant|demo-capacity-load|demo-changes)\\.ts$'] },
      to: { path: '^src/tenant-sim/' },
    },
    {
      name: 'tenant-sim-stands-alone',
      severity: 'error',
      from: { path: '^src/tenant-sim/' },
      to: { path: '^src/', pathNot: ['^src/tenant-sim/', '^src/contracts/', '^src/receiver/local-ca\\.ts$', '^src/zone-offset\\.ts$'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
