-- The hourly API budget per (tenant's directory, API family) as ONE row of 10-second counters
-- (parallel arrays: bucket number = epoch seconds / 10, calls in it). A call is taken with a single
-- upsert that drops buckets older than the hour, adds one to the current bucket, and does so only
-- while the hour's sum is below the cap. Concurrent takers serialize on the row lock and each sees
-- the latest committed counters, so no 60-minute window ever holds more calls than the cap,
-- however many instances run. The row prunes itself: nothing grows per call.
CREATE TABLE tenant_api_budget (
  directory_id text NOT NULL,
  family text NOT NULL,
  buckets bigint[] NOT NULL,
  counts integer[] NOT NULL,
  PRIMARY KEY (directory_id, family)
);
DROP TABLE tenant_api_calls;

-- What a collector's last run read and left for later (reported by the collectors that poll
-- resources one by one), and how long it has been leaving due resources unread: the self-watch
-- raises Tenant / CollectorBehind from it.
ALTER TABLE collector_schedules
  ADD COLUMN last_polled integer,
  ADD COLUMN last_deferred integer,
  ADD COLUMN behind_since timestamptz,
  ADD COLUMN behind_runs integer NOT NULL DEFAULT 0,
  ADD COLUMN behind_reported boolean NOT NULL DEFAULT false;
