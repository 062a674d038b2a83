-- Data freshness settings of a tenant connection: the grace period of a scheduled refresh (tenant
-- row only) and the optional maximum data age, per tenant, per workspace or per item (semantic
-- model or mirrored database); the most specific row wins. Platform ids are kept in lower case.
CREATE TABLE freshness_settings (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  scope text NOT NULL CHECK (scope IN ('tenant', 'workspace', 'item')),
  -- '' for the tenant row.
  scope_id text NOT NULL,
  max_age_minutes integer CHECK (max_age_minutes > 0),
  grace_minutes integer CHECK (grace_minutes > 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_ref, scope, scope_id),
  CHECK ((scope = 'tenant') = (scope_id = '')),
  CHECK (scope = 'tenant' OR (grace_minutes IS NULL AND max_age_minutes IS NOT NULL))
);
