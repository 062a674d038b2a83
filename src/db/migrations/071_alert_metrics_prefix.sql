-- Prefix checkpoints of the exact metrics rollup (issue 12). SQL accepted by PostgreSQL 15 and PGlite.
-- A window [a, b) read from the per-day and per-month rows of migration 070 costs one row per
-- source group and distinct duration *per period*: a 366-day window merged ~11 months and ~31 edge
-- days, ~350,000 rows. Here, per organization and per checkpoint C (every Monday 00:00 UTC from
-- the week of its first alert to the first Monday after its last alert's day), the sums of every
-- daily rollup row with period < C: alert_metrics_prefix per source group, alert_durations_prefix
-- per (kind, duration). Then a window is P(b) − P(a), and P(x) is the nearest checkpoint plus or
-- minus the few daily rows between it and x: two cumulative states plus at most ~3 edge days each
-- side, whatever the window's length.
--
-- Invariant (what makes the difference exact): for every registered checkpoint C of an org,
-- prefix(C) = Σ of that org's *compacted* (pending = false) daily rows with period < C. Readers
-- add the pending daily rows with period < C themselves. Only compactAlertMetrics writes these
-- tables (under its per-organization lock, in the statement that turns pending rows into
-- compacted ones), so the triggers in ingest transactions are unchanged and writers never touch
-- a prefix row.
CREATE TABLE alert_metrics_checkpoints (
  org_id text NOT NULL,
  upto timestamptz NOT NULL,                        -- a Monday 00:00 UTC; the prefix covers period < upto
  PRIMARY KEY (org_id, upto)
);

CREATE TABLE alert_metrics_prefix (
  org_id text NOT NULL,
  upto timestamptz NOT NULL,
  source_type text NOT NULL,
  source_name text NOT NULL,
  incidents bigint NOT NULL,
  occurrences bigint NOT NULL,
  acknowledged bigint NOT NULL,
  resolved bigint NOT NULL,
  open_unacknowledged bigint NOT NULL,
  silenced bigint NOT NULL,
  correlated bigint NOT NULL,
  PRIMARY KEY (org_id, upto, source_type, source_name)
);

CREATE TABLE alert_durations_prefix (
  org_id text NOT NULL,
  upto timestamptz NOT NULL,
  kind "char" NOT NULL,
  micros bigint NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (org_id, upto, kind, micros)
);

CREATE OR REPLACE FUNCTION alert_metrics_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM alert_metrics_rollup;
  DELETE FROM alert_durations_rollup;
  DELETE FROM alert_metrics_checkpoints;
  DELETE FROM alert_metrics_prefix;
  DELETE FROM alert_durations_prefix;
  RETURN NULL;
END $$;

-- No backfill: the first compaction of an organization (compactAlertMetrics) builds its
-- checkpoints from the compacted daily rows.

-- Called once by the rollup reads (src/public-api/queries/metrics.ts): a parallel-unsafe function
-- keeps PostgreSQL from planning them with parallel workers (slower for these few-thousand-row
-- reads on a small, busy machine), without SET LOCAL and so without a transaction, which a
-- read-replica router would send to the primary. PL/pgSQL, so it is never inlined away.
CREATE FUNCTION alert_metrics_serial() RETURNS boolean LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE AS $$
BEGIN
  RETURN true;
END $$;
