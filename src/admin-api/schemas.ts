/**
 * Response schemas of the admin routes (destinations, deliveries, alerts, silences, API keys,
 * inventory writes, tenants, people, the session). They document the answers in the admin
 * OpenAPI document (the console's types are generated from it) and Fastify serializes each
 * answer through them, which drops any field not listed: every field a route returns must be
 * here. A `title` names the schema in the document's components.
 *
 * The schemas live in ./schemas/ by area; this index re-exports them all, so routes import from
 * here: delivery.ts (destinations, deliveries), alerts.ts (alerts, signals, silences),
 * org-data.ts (API keys, inventory writes), tenants.ts (tenant connections), people.ts (members,
 * personal tokens, audit log, session), overview.ts (the console's overview and inventory
 * views), inbound.ts (a connector destination's inbound address),
 * utilization.ts (a tenant connection's capacity-load settings); common.ts holds the shared building blocks.
 */
export * from './schemas/delivery.js';
export * from './schemas/alerts.js';
export * from './schemas/org-data.js';
export * from './schemas/tenants.js';
export * from './schemas/people.js';
export * from './schemas/overview.js';
export * from './schemas/inbound.js';
export * from './schemas/utilization.js';
