-- Replication lag thresholds of the mirroring collector, per tenant connection: a mirrored
-- table whose last sync latency is over the first opens an info incident, over the second an
-- error one. Columns with defaults, so existing connections get the documented 15 min / 1 h.
ALTER TABLE tenants ADD COLUMN mirroring_lag_info_seconds integer NOT NULL DEFAULT 900;
ALTER TABLE tenants ADD COLUMN mirroring_lag_error_seconds integer NOT NULL DEFAULT 3600;
ALTER TABLE tenants ADD CONSTRAINT tenants_mirroring_lag_order
  CHECK (mirroring_lag_info_seconds > 0 AND mirroring_lag_info_seconds < mirroring_lag_error_seconds);
