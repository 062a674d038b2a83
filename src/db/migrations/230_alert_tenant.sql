-- The tenant connection whose collector raised an alert, so a tenant's incidents can be listed
-- (the console's Tenant page links to them). Null for alerts that came through the signals API
-- or before this column; the monitor's own Tenant incidents are found by their source id. No
-- foreign key: a removed tenant's resolved incidents keep saying where they came from.
ALTER TABLE alerts ADD COLUMN tenant_ref text;
CREATE INDEX alerts_by_tenant ON alerts (org_id, tenant_ref, created_at DESC) WHERE tenant_ref IS NOT NULL;
