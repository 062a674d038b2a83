-- Exact metrics rollup (issue 12). SQL accepted by PostgreSQL 15 and PGlite.
-- Two rollups of alerts per UTC day (span 'd') and per UTC month (span 'm', so a year-wide
-- window merges ~12 months plus its edge days instead of 366 days), keyed by the UTC day or
-- month of created_at, kept like alert_counts (migration 031): statement-level AFTER triggers append signed deltas in the writer's
-- transaction (append-only, so writers never lock a rollup row) and compactAlertMetrics folds
-- `pending` rows from time to time. For any group, the sums equal the plain aggregate over alerts.
--
-- alert_metrics_rollup: per (org, span, period, source_type, source_name) the plain counts metrics report.
-- alert_durations_rollup: a histogram of the MTTA (kind 'a') and MTTR (kind 'r') samples: per
-- (org, span, period, kind, duration in microseconds) the number of incidents with that exact duration.
-- Microseconds are the resolution of timestamptz, so merging the histograms of a window gives the
-- exact median (walk the cumulative counts) and the exact mean (Σ duration·n / Σ n). Alert
-- timestamps come in whole seconds or milliseconds, so a period holds few distinct durations.
CREATE TABLE alert_metrics_rollup (
  org_id text NOT NULL,
  span "char" NOT NULL,                             -- 'd' a UTC day, 'm' a UTC month
  period timestamptz NOT NULL,                      -- date_trunc('day' or 'month', created_at, 'UTC')
  source_type text NOT NULL,
  source_name text NOT NULL,
  incidents bigint NOT NULL,
  occurrences bigint NOT NULL,                      -- Σ failure_count
  acknowledged bigint NOT NULL,
  resolved bigint NOT NULL,
  open_unacknowledged bigint NOT NULL,
  silenced bigint NOT NULL,
  correlated bigint NOT NULL,
  pending boolean NOT NULL DEFAULT true
);
CREATE INDEX alert_metrics_rollup_org_day ON alert_metrics_rollup (org_id, span, period);
CREATE INDEX alert_metrics_rollup_pending ON alert_metrics_rollup (org_id) WHERE pending;

CREATE TABLE alert_durations_rollup (
  org_id text NOT NULL,
  span "char" NOT NULL,
  period timestamptz NOT NULL,
  kind "char" NOT NULL,                             -- 'a' acknowledged_at − created_at, 'r' resolved_at − created_at
  micros bigint NOT NULL,
  n bigint NOT NULL,
  pending boolean NOT NULL DEFAULT true
);
CREATE INDEX alert_durations_rollup_org_day ON alert_durations_rollup (org_id, span, period) INCLUDE (kind, micros, n);
CREATE INDEX alert_durations_rollup_pending ON alert_durations_rollup (org_id) WHERE pending;

-- Exact length of a duration in microseconds (the interval's days count 86,400 s, as date_part's epoch does).
CREATE FUNCTION alert_duration_micros(since timestamptz, till timestamptz) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS $$ SELECT (extract(epoch FROM till - since) * 1000000)::bigint $$;

-- Each function appends, per group a statement changed, the signed sum of its rows: old rows
-- count −1, new rows +1; groups that sum to zero (an update that changed nothing counted) write nothing.
CREATE FUNCTION alert_metrics_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_metrics_rollup (org_id, span, period, source_type, source_name, incidents, occurrences,
                                   acknowledged, resolved, open_unacknowledged, silenced, correlated)
  SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), source_type, source_name,
         sum(d), sum(d * failure_count),
         sum(CASE WHEN acknowledged THEN d ELSE 0 END),
         sum(CASE WHEN status = 'resolved' THEN d ELSE 0 END),
         sum(CASE WHEN status = 'open' AND NOT acknowledged THEN d ELSE 0 END),
         sum(CASE WHEN silenced THEN d ELSE 0 END),
         sum(CASE WHEN correlated THEN d ELSE 0 END)
    FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, 1 AS d FROM new_rows) x CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d) <> 0 OR sum(d * failure_count) <> 0
      OR sum(CASE WHEN acknowledged THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN status = 'resolved' THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN status = 'open' AND NOT acknowledged THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN silenced THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN correlated THEN d ELSE 0 END) <> 0;
  INSERT INTO alert_durations_rollup (org_id, span, period, kind, micros, n)
  SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), kind, micros, sum(d)
    FROM (SELECT org_id, created_at, 'a'::"char" AS kind,
                 alert_duration_micros(created_at, acknowledged_at) AS micros, d
            FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, 1 AS d FROM new_rows) x WHERE acknowledged_at IS NOT NULL
          UNION ALL
          SELECT org_id, created_at, 'r'::"char",
                 alert_duration_micros(created_at, resolved_at), d
            FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, 1 AS d FROM new_rows) x WHERE resolved_at IS NOT NULL) s
         CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d) <> 0;
  RETURN NULL;
END $$;
CREATE FUNCTION alert_metrics_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_metrics_rollup (org_id, span, period, source_type, source_name, incidents, occurrences,
                                   acknowledged, resolved, open_unacknowledged, silenced, correlated)
  SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), source_type, source_name,
         sum(d), sum(d * failure_count),
         sum(CASE WHEN acknowledged THEN d ELSE 0 END),
         sum(CASE WHEN status = 'resolved' THEN d ELSE 0 END),
         sum(CASE WHEN status = 'open' AND NOT acknowledged THEN d ELSE 0 END),
         sum(CASE WHEN silenced THEN d ELSE 0 END),
         sum(CASE WHEN correlated THEN d ELSE 0 END)
    FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, -1 AS d FROM old_rows UNION ALL SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, 1 AS d FROM new_rows) x CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d) <> 0 OR sum(d * failure_count) <> 0
      OR sum(CASE WHEN acknowledged THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN status = 'resolved' THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN status = 'open' AND NOT acknowledged THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN silenced THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN correlated THEN d ELSE 0 END) <> 0;
  INSERT INTO alert_durations_rollup (org_id, span, period, kind, micros, n)
  SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), kind, micros, sum(d)
    FROM (SELECT org_id, created_at, 'a'::"char" AS kind,
                 alert_duration_micros(created_at, acknowledged_at) AS micros, d
            FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, -1 AS d FROM old_rows UNION ALL SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, 1 AS d FROM new_rows) x WHERE acknowledged_at IS NOT NULL
          UNION ALL
          SELECT org_id, created_at, 'r'::"char",
                 alert_duration_micros(created_at, resolved_at), d
            FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, -1 AS d FROM old_rows UNION ALL SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, 1 AS d FROM new_rows) x WHERE resolved_at IS NOT NULL) s
         CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d) <> 0;
  RETURN NULL;
END $$;
CREATE FUNCTION alert_metrics_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO alert_metrics_rollup (org_id, span, period, source_type, source_name, incidents, occurrences,
                                   acknowledged, resolved, open_unacknowledged, silenced, correlated)
  SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), source_type, source_name,
         sum(d), sum(d * failure_count),
         sum(CASE WHEN acknowledged THEN d ELSE 0 END),
         sum(CASE WHEN status = 'resolved' THEN d ELSE 0 END),
         sum(CASE WHEN status = 'open' AND NOT acknowledged THEN d ELSE 0 END),
         sum(CASE WHEN silenced THEN d ELSE 0 END),
         sum(CASE WHEN correlated THEN d ELSE 0 END)
    FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, -1 AS d FROM old_rows) x CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d) <> 0 OR sum(d * failure_count) <> 0
      OR sum(CASE WHEN acknowledged THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN status = 'resolved' THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN status = 'open' AND NOT acknowledged THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN silenced THEN d ELSE 0 END) <> 0
      OR sum(CASE WHEN correlated THEN d ELSE 0 END) <> 0;
  INSERT INTO alert_durations_rollup (org_id, span, period, kind, micros, n)
  SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), kind, micros, sum(d)
    FROM (SELECT org_id, created_at, 'a'::"char" AS kind,
                 alert_duration_micros(created_at, acknowledged_at) AS micros, d
            FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, -1 AS d FROM old_rows) x WHERE acknowledged_at IS NOT NULL
          UNION ALL
          SELECT org_id, created_at, 'r'::"char",
                 alert_duration_micros(created_at, resolved_at), d
            FROM (SELECT org_id, created_at, source_type, source_name, failure_count::int8 AS failure_count, acknowledged, status, silenced, correlated, acknowledged_at, resolved_at, -1 AS d FROM old_rows) x WHERE resolved_at IS NOT NULL) s
         CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
   GROUP BY 1, 2, 3, 4, 5
  HAVING sum(d) <> 0;
  RETURN NULL;
END $$;

CREATE TRIGGER alert_metrics_insert AFTER INSERT ON alerts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_metrics_on_insert();
CREATE TRIGGER alert_metrics_update AFTER UPDATE ON alerts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_metrics_on_update();
CREATE TRIGGER alert_metrics_delete AFTER DELETE ON alerts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION alert_metrics_on_delete();

CREATE FUNCTION alert_metrics_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM alert_metrics_rollup;
  DELETE FROM alert_durations_rollup;
  RETURN NULL;
END $$;
CREATE TRIGGER alert_metrics_truncate AFTER TRUNCATE ON alerts
  FOR EACH STATEMENT EXECUTE FUNCTION alert_metrics_on_truncate();

-- Backfill: the existing alerts, already compacted.
INSERT INTO alert_metrics_rollup (org_id, span, period, source_type, source_name, incidents, occurrences, acknowledged,
                                 resolved, open_unacknowledged, silenced, correlated, pending)
SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), source_type, source_name, count(*), sum(failure_count),
       count(*) FILTER (WHERE acknowledged), count(*) FILTER (WHERE status = 'resolved'),
       count(*) FILTER (WHERE status = 'open' AND NOT acknowledged),
       count(*) FILTER (WHERE silenced), count(*) FILTER (WHERE correlated), false
  FROM alerts CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span) GROUP BY 1, 2, 3, 4, 5;
INSERT INTO alert_durations_rollup (org_id, span, period, kind, micros, n, pending)
SELECT org_id, span, date_trunc(CASE span WHEN 'd' THEN 'day' ELSE 'month' END, created_at, 'UTC'), kind, micros, count(*), false
  FROM (SELECT org_id, created_at, 'a'::"char" AS kind,
               alert_duration_micros(created_at, acknowledged_at) AS micros
          FROM alerts WHERE acknowledged_at IS NOT NULL
        UNION ALL
        SELECT org_id, created_at, 'r'::"char", alert_duration_micros(created_at, resolved_at)
          FROM alerts WHERE resolved_at IS NOT NULL) s
       CROSS JOIN (VALUES ('d'::"char"), ('m'::"char")) spans (span)
 GROUP BY 1, 2, 3, 4, 5;
