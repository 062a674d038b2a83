-- Lineage of the watched items, kept with the inventory: which workspace and capacity an item
-- (semantic model, pipeline, notebook, mirrored database…) runs on, and which gateways and data
-- sources it reads through. A failure is correlated to its root cause through these rows.
CREATE TABLE monitored_lineage (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- Platform ids in lower case (Fabric and Power BI disagree on case).
  item_id text NOT NULL,
  item_type text NOT NULL,
  item_name text NOT NULL,
  workspace_id text NOT NULL,
  capacity_id text,
  gateway_ids text[] NOT NULL DEFAULT '{}',
  datasource_ids text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_ref, item_id)
);
