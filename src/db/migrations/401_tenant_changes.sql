-- Changes read from a tenant's activity log (the `activity` collector, admin mode): one row per
-- record the platform logged for a change that can break refreshes or reports (schedules,
-- credentials, gateway bindings, ownership, capacity, tenant settings, deletions, deployments —
-- docs/monitoring.md "Activity log"). Views and exports are never stored.
--
-- The actor's UPN is kept in its own column and removed from `raw`, so withholding the actor
-- (webhook and connector payloads, roles that may not see it — docs/access.md) is leaving out
-- one column. Platform ids are kept in lower case. Kept `change_retention_days` (tenants) days.
CREATE TABLE tenant_changes (
  org_id text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- The log's record `Id` (lower case): the de-duplication key, unique per tenant connection.
  record_id text NOT NULL,
  -- The operation name as logged (`Activity`, e.g. 'UpdateDatasourceCredentials').
  activity text NOT NULL,
  -- `CreationTime`, always read as UTC (the log writes some times without a zone).
  occurred_at timestamptz NOT NULL,
  -- What was changed: an item (semantic model, report, dataflow, Fabric item), a gateway, a
  -- capacity, a workspace, or the tenant itself (object_id NULL).
  object_kind text NOT NULL CHECK (object_kind IN ('item', 'gateway', 'capacity', 'workspace', 'tenant')),
  object_id text,
  -- The item's type when object_kind = 'item' ('SemanticModel', 'Report', 'Dataflow', ...).
  object_type text,
  object_name text,
  -- Every id the record links to, for joining a change to what depends on it.
  dataset_id text,
  gateway_id text,
  datasource_id text,
  workspace_id text,
  capacity_id text,
  -- Whether the platform says the activity succeeded (`IsSuccess`; NULL when not logged).
  is_success boolean,
  -- Who did it: the UPN (`UserId`), personal — never in webhook/connector payloads.
  actor_upn text,
  -- `UserType` (0 regular user, 6 service principal, ...): not personal.
  actor_type integer,
  -- The record as logged, without `UserId`, `UserKey` and `ClientIP`.
  raw jsonb NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_ref, record_id),
  CHECK ((object_kind = 'tenant') = (object_id IS NULL))
);
-- The timeline (newest first, keyset on time then record id) and the retention delete.
CREATE INDEX tenant_changes_by_time ON tenant_changes (tenant_ref, occurred_at, record_id);
-- Changes to one object (an incident's item, gateway, capacity) in a time range.
CREATE INDEX tenant_changes_by_object ON tenant_changes (tenant_ref, object_kind, object_id, occurred_at);

-- How many days of changes a tenant connection keeps (the log itself keeps 30).
ALTER TABLE tenants ADD COLUMN IF NOT EXISTS change_retention_days integer NOT NULL DEFAULT 30
  CHECK (change_retention_days BETWEEN 1 AND 400);
