-- Delivery engine (issue 3): fresh attempt budgets for redeliveries, the per-organization
-- dispatch budget shared by every worker instance, and indexes of the dispatcher's queries.

-- Attempts before this number belong to earlier budgets (a redelivery starts a new budget but
-- keeps numbering attempts, so the attempt log is never overwritten).
ALTER TABLE deliveries ADD COLUMN attempt_base integer NOT NULL DEFAULT 0;

-- One row per organization: how many deliveries all instances started in the current cycle.
CREATE TABLE delivery_org_budget (
  org_id text PRIMARY KEY REFERENCES orgs(id),
  cycle_start timestamptz NOT NULL,
  used integer NOT NULL
);

-- Held connector deliveries of an incident, released in event order.
CREATE INDEX deliveries_waiting ON deliveries (destination_id, alert_id, event_seq) WHERE status = 'waiting';
-- History list filtered by status.
CREATE INDEX deliveries_destination_status ON deliveries (destination_id, status, created_at DESC, id DESC);
