-- SLA availability (issue 12 item 2). A Capacity error incident still open is down from its start
-- until the end of every period after it, so the union of a capacity's open incidents over a
-- period is one interval from the earliest of them: only that earliest start matters. This partial
-- index holds just the open ones, keyed by capacity (capacity_name, or source_name when it is
-- empty: the expression of src/public-api/queries/sla.ts) and start, so the report finds each
-- capacity's earliest open incident with one probe (a skip scan over the capacities) instead of
-- reading every open incident through alerts_capacity_downtime (thousands on a busy organization;
-- ~11,000 in the benchmark). The predicate is the exact complement of the report's range on
-- resolved incidents (coalesce(resolved_at, infinity) < infinity). Its columns are all covered by
-- alerts_capacity_downtime already, so updates that were HOT stay HOT; no trigger, no lock.
CREATE INDEX alerts_capacity_open
  ON alerts (org_id, (coalesce(nullif(capacity_name, ''), source_name)), created_at)
  WHERE source_type = 'Capacity' AND severity = 'error'
    AND coalesce(resolved_at, 'infinity'::timestamptz) = 'infinity'::timestamptz;
