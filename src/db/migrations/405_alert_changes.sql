-- The changes (tenant_changes, migration 401) joined to an incident as its likely causes
-- (docs/monitoring.md "What changed before it broke"): at most a few per incident, ranked
-- (1 = most likely) by a score from closeness in time and in the dependency path. Written when
-- the incident opens and again when a change inside its look-back arrives late (the activity log
-- lags up to 60 minutes); each join replaces the incident's rows.
CREATE TABLE alert_changes (
  org_id text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  alert_id text NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  tenant_ref text NOT NULL,
  record_id text NOT NULL,
  rank integer NOT NULL CHECK (rank >= 1),
  score double precision NOT NULL,
  -- How the change reaches the incident's object: 'same' (the object itself), 'datasource',
  -- 'gateway', 'workspace', 'capacity', 'tenant' (docs/monitoring.md, the ranking).
  path text NOT NULL,
  attached_at timestamptz NOT NULL,
  PRIMARY KEY (alert_id, record_id),
  FOREIGN KEY (tenant_ref, record_id) REFERENCES tenant_changes (tenant_ref, record_id) ON DELETE CASCADE
);
CREATE INDEX alert_changes_by_change ON alert_changes (tenant_ref, record_id);

-- How far the late-change pass has read each tenant connection's changes (received_at).
CREATE TABLE change_join_progress (
  tenant_ref text PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  received_until timestamptz NOT NULL
);

-- How far back before an incident opened the join looks (minutes; default 24 h, up to 7 days).
ALTER TABLE tenants ADD COLUMN IF NOT EXISTS change_lookback_minutes integer NOT NULL DEFAULT 1440
  CHECK (change_lookback_minutes BETWEEN 10 AND 10080);
CREATE INDEX tenant_changes_by_arrival ON tenant_changes (tenant_ref, received_at);
