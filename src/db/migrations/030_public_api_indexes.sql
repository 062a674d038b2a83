-- Public API read model (issue 5). SQL accepted by PostgreSQL 15 and PGlite.
-- SLA availability: the Capacity error incidents still open at some point of a month are those
-- with coalesce(resolved_at, infinity) > month start. Ordering the partial index by that value
-- bounds the scan to recent and still-open incidents, and the INCLUDE columns make it
-- index-only. Reoccurrence updates (failure_count, last_occurrence_at) touch none of these
-- columns, so they stay HOT.
CREATE INDEX alerts_capacity_downtime
  ON alerts (org_id, (coalesce(resolved_at, 'infinity'::timestamptz)))
  INCLUDE (created_at, resolved_at, capacity_name, source_name)
  WHERE source_type = 'Capacity' AND severity = 'error';
