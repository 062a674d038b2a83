-- Capacity load (the `utilization` collector, docs/monitoring.md).
-- The tenant connection's `utilization` field: its sources and thresholds, as one JSON object
-- validated by src/monitoring/utilization-settings.ts ({} = defaults, no source).
ALTER TABLE tenants ADD COLUMN utilization jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Each capacity's 30-second figures, as the capacity overview events give them, kept 14 days.
-- One row per (capacity, window): the platform may deliver an event twice, it is stored once.
-- Percentages are of the window's budget (base CU x 30 s); carry_forward_cu_ms enters the window.
CREATE TABLE capacity_utilization (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  org_id text NOT NULL,
  capacity_id text NOT NULL,
  capacity_name text NOT NULL,
  window_start timestamptz NOT NULL,
  sku text NOT NULL,
  utilization_pct real NOT NULL,
  delay_pct real NOT NULL,
  interactive_rejection_pct real NOT NULL,
  background_rejection_pct real NOT NULL,
  carry_forward_cu_ms double precision NOT NULL,
  PRIMARY KEY (tenant_ref, capacity_id, window_start)
);
CREATE INDEX capacity_utilization_by_org ON capacity_utilization (org_id, capacity_name, window_start);
CREATE INDEX capacity_utilization_by_time ON capacity_utilization (window_start);

-- Hourly roll-ups of the same figures, kept 400 days: max and mean of each, and the minutes each
-- throttling stage was in force (a window counts 0.5 min in every stage it reached).
CREATE TABLE capacity_utilization_hourly (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  org_id text NOT NULL,
  capacity_id text NOT NULL,
  capacity_name text NOT NULL,
  hour timestamptz NOT NULL,
  windows integer NOT NULL,
  utilization_max real NOT NULL,
  utilization_mean real NOT NULL,
  delay_max real NOT NULL,
  delay_mean real NOT NULL,
  interactive_rejection_max real NOT NULL,
  interactive_rejection_mean real NOT NULL,
  background_rejection_max real NOT NULL,
  background_rejection_mean real NOT NULL,
  carry_forward_max_cu_ms double precision NOT NULL,
  delay_minutes real NOT NULL,
  interactive_rejection_minutes real NOT NULL,
  background_rejection_minutes real NOT NULL,
  PRIMARY KEY (tenant_ref, capacity_id, hour)
);
CREATE INDEX capacity_utilization_hourly_by_org ON capacity_utilization_hourly (org_id, capacity_name, hour);
CREATE INDEX capacity_utilization_hourly_by_time ON capacity_utilization_hourly (hour);

-- Connections made before the collector existed get its schedule row (enabled; it reads nothing
-- until the connection's `utilization` field names a source).
INSERT INTO collector_schedules (tenant_ref, collector, org_id, enabled, interval_seconds, next_run_at)
SELECT id, 'utilization', org_id, true, 30, now() FROM tenants
ON CONFLICT (tenant_ref, collector) DO NOTHING;
