-- The console's semantic-models view joins each model's lineage row to its workspace and its
-- capacity by lower-cased ids (the platform's ids differ in case between APIs). Without an index on
-- those expressions the join compared every model with every workspace: 9-16 s for 3,301 models.
CREATE INDEX IF NOT EXISTS workspaces_org_lower_remote_id ON workspaces (org_id, lower(remote_id));
CREATE INDEX IF NOT EXISTS collector_state_capacity_lower_key ON collector_state (tenant_ref, lower(key)) WHERE collector = 'capacity';
