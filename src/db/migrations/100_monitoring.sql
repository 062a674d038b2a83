-- Monitoring core: tenant connections, one schedule row per (tenant, collector) claimed with a
-- lease, collector state that survives restarts, and the shared hourly API budgets.

CREATE TABLE tenants (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  name text NOT NULL,
  tenant_id text NOT NULL,
  client_id text NOT NULL,
  credential_type text NOT NULL CHECK (credential_type IN ('secret', 'certificate')),
  credentials_sealed text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('admin', 'member')),
  workspaces jsonb,
  cost_scopes jsonb NOT NULL DEFAULT '[]',
  endpoints jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX tenants_by_org ON tenants (org_id, created_at, id);

-- One row per (tenant, collector). A runner leases a due row (locked_until, locked_by) with
-- FOR UPDATE SKIP LOCKED; a killed runner's lease simply expires.
CREATE TABLE collector_schedules (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collector text NOT NULL,
  org_id text NOT NULL,
  enabled boolean NOT NULL,
  interval_seconds integer NOT NULL CHECK (interval_seconds >= 5),
  next_run_at timestamptz NOT NULL,
  locked_until timestamptz,
  locked_by text,
  last_run_at timestamptz,
  last_success_at timestamptz,
  last_duration_ms integer,
  last_calls integer,
  last_throttled_calls integer,
  last_error text,
  -- The monitor watching itself: what this collector could not do, since when, and whether
  -- the Tenant incident for it was already signalled.
  problem_kind text,
  problem_since timestamptz,
  problem_reported boolean NOT NULL DEFAULT false,
  PRIMARY KEY (tenant_ref, collector)
);
CREATE INDEX collector_schedules_due ON collector_schedules (next_run_at) WHERE enabled;

-- Last seen state per (tenant, collector, resource key), written in the same transaction as the
-- signals it led to, so a restart neither loses a transition nor signals it twice.
CREATE TABLE collector_state (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  collector text NOT NULL,
  key text NOT NULL,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_ref, collector, key)
);

-- Vendor calls of the last hour per (tenant's directory, API family), shared by every instance:
-- a call is taken (counted, checked against the family's hourly cap, recorded) in one
-- transaction under an advisory lock per (directory, family), so every 60-minute window keeps
-- the cap whichever way the platform counts. Rows older than an hour are pruned as calls go.
CREATE TABLE tenant_api_calls (
  directory_id text NOT NULL,
  family text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX tenant_api_calls_window ON tenant_api_calls (directory_id, family, at);
