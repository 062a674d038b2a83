-- The semantic-models view is paged by name (keyset: name, then id). Per tenant connection the
-- next page is an index range read instead of sorting every model: ~200,000 models in one tenant
-- made the unpaged view 1.2 s. "C" collation so PostgreSQL and the embedded engine order alike.
CREATE INDEX IF NOT EXISTS monitored_lineage_by_name
  ON monitored_lineage (tenant_ref, item_type, (item_name COLLATE "C"), item_id);
