-- Delivery operations (issue 11): endpoint health with automatic disabling, `skipped`
-- deliveries of disabled destinations, and per-destination rate limits shared by all workers.

-- One row per destination that has finished a delivery (or was disabled/enabled): written only
-- by the outbox (settle step, disable/enable). A destination without a row is healthy.
CREATE TABLE destination_health (
  destination_id text PRIMARY KEY REFERENCES destinations(id),
  org_id text NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  failing_since timestamptz,                       -- when the current run of failures began
  last_success_at timestamptz,
  last_failure_at timestamptz,
  disabled_at timestamptz,
  disabled_reason text
);

-- `skipped`: an event for a disabled destination, kept so it can be recovered. The status list
-- is the one of src/outbox/status.ts (an earlier migration may have added it without skipped).
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
  CHECK (status IN ('pending', 'waiting', 'succeeded', 'failed', 'abandoned', 'skipped'));

-- Optional sends per second, honoured by all workers together.
ALTER TABLE destinations ADD COLUMN rate_limit_per_second integer
  CONSTRAINT destinations_rate_limit_range CHECK (rate_limit_per_second BETWEEN 1 AND 1000);

-- GCRA state of each rate-limited destination: the theoretical arrival time of its next send.
CREATE TABLE destination_rate (
  destination_id text PRIMARY KEY REFERENCES destinations(id),
  tat timestamptz NOT NULL
);

-- successRate24h counts the deliveries of a destination that ended in the last 24 hours; without
-- this index that read would scan the destination's whole 30-day history.
CREATE INDEX deliveries_destination_completed ON deliveries (destination_id, completed_at) WHERE completed_at IS NOT NULL AND NOT test;
