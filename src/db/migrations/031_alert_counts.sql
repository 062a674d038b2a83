-- Public API count rollup (issue 5). SQL accepted by PostgreSQL 15 and PGlite.
-- alert_counts holds signed deltas of the number of alerts per (organization, UTC hour of
-- created_at, status, source_type): for any group, sum(n) equals count(*) of the alerts in it.
-- alert_counts_daily is the same per UTC day, so a year-wide window sums ~366 rows per
-- (status, source_type) instead of ~8,800.
-- Statement-level AFTER triggers on alerts append one row per group a statement changed (read
-- from the transition tables), in the writer's transaction — so a snapshot that sees an alert
-- change also sees its delta. The rows are append-only: no writer ever updates or locks a
-- rollup row, so concurrent ingest batches neither queue nor deadlock on it. The public API
-- folds `pending` deltas into one row per group from time to time (compactAlertCounts).
CREATE TABLE alert_counts (
  org_id text NOT NULL,
  hour timestamptz NOT NULL,                        -- date_trunc('hour', created_at, 'UTC')
  status text NOT NULL,
  source_type text NOT NULL,
  n bigint NOT NULL,
  pending boolean NOT NULL DEFAULT true             -- written by a trigger, not yet compacted
);
CREATE INDEX alert_counts_org_hour ON alert_counts (org_id, hour, status, source_type) INCLUDE (n);
CREATE INDEX alert_counts_pending ON alert_counts (org_id) WHERE pending;

CREATE TABLE alert_counts_daily (
  org_id text NOT NULL,
  day timestamptz NOT NULL,                         -- date_trunc('day', created_at, 'UTC')
  status text NOT NULL,
  source_type text NOT NULL,
  n bigint NOT NULL,
  pending boolean NOT NULL DEFAULT true
);
CREATE INDEX alert_counts_daily_org_day ON alert_counts_daily (org_id, day, status, source_type) INCLUDE (n);
CREATE INDEX alert_counts_daily_pending ON alert_counts_daily (org_id) WHERE pending;

CREATE FUNCTION alert_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_counts (org_id, hour, status, source_type, n)
  SELECT org_id, date_trunc('hour', created_at, 'UTC'), status, source_type, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4;
  INSERT INTO alert_counts_daily (org_id, day, status, source_type, n)
  SELECT org_id, date_trunc('day', created_at, 'UTC'), status, source_type, count(*)
    FROM new_rows GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;

CREATE FUNCTION alert_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_counts (org_id, hour, status, source_type, n)
  SELECT org_id, date_trunc('hour', created_at, 'UTC'), status, source_type, -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4;
  INSERT INTO alert_counts_daily (org_id, day, status, source_type, n)
  SELECT org_id, date_trunc('day', created_at, 'UTC'), status, source_type, -count(*)
    FROM old_rows GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END $$;

-- Old rows count −1 and new rows +1 in their groups; groups whose sum is 0 (an update that did
-- not move the row: acknowledge, reoccurrence, release…) write nothing.
CREATE FUNCTION alert_counts_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_counts (org_id, hour, status, source_type, n)
  SELECT org_id, hour, status, source_type, sum(d)
    FROM (SELECT org_id, date_trunc('hour', created_at, 'UTC') AS hour, status, source_type, -1 AS d FROM old_rows
          UNION ALL
          SELECT org_id, date_trunc('hour', created_at, 'UTC'), status, source_type, 1 FROM new_rows) x
   GROUP BY 1, 2, 3, 4
  HAVING sum(d) <> 0;
  -- Same hour ⇒ same day: only rows that moved between hour groups can move between day groups.
  IF FOUND THEN
    INSERT INTO alert_counts_daily (org_id, day, status, source_type, n)
    SELECT org_id, day, status, source_type, sum(d)
      FROM (SELECT org_id, date_trunc('day', created_at, 'UTC') AS day, status, source_type, -1 AS d FROM old_rows
            UNION ALL
            SELECT org_id, date_trunc('day', created_at, 'UTC'), status, source_type, 1 FROM new_rows) x
     GROUP BY 1, 2, 3, 4
    HAVING sum(d) <> 0;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER alert_counts_insert AFTER INSERT ON alerts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_insert();
CREATE TRIGGER alert_counts_update AFTER UPDATE ON alerts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_update();
CREATE TRIGGER alert_counts_delete AFTER DELETE ON alerts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_delete();

CREATE FUNCTION alert_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM alert_counts;
  DELETE FROM alert_counts_daily;
  RETURN NULL;
END $$;
CREATE TRIGGER alert_counts_truncate AFTER TRUNCATE ON alerts
  FOR EACH STATEMENT EXECUTE FUNCTION alert_counts_on_truncate();

-- Backfill: the existing alerts, already compacted.
INSERT INTO alert_counts (org_id, hour, status, source_type, n, pending)
SELECT org_id, date_trunc('hour', created_at, 'UTC'), status, source_type, count(*), false
  FROM alerts GROUP BY 1, 2, 3, 4;
INSERT INTO alert_counts_daily (org_id, day, status, source_type, n, pending)
SELECT org_id, date_trunc('day', created_at, 'UTC'), status, source_type, count(*), false
  FROM alerts GROUP BY 1, 2, 3, 4;
