-- Vigia's share of the platform's per-tenant caps (docs/monitoring.md "Vigia's share of the
-- tenant-wide caps"): a setting per tenant connection, in percent of each documented per-tenant
-- cap (Power BI admin groups 50/h, capacities and refreshables 200/h, ...); the rest is left to
-- the customer's other tools.
ALTER TABLE tenants ADD COLUMN cap_share_percent integer NOT NULL DEFAULT 50
  CHECK (cap_share_percent BETWEEN 1 AND 100);
-- tenant_api_budget.family is a budget key: an API family ('powerbi') or, for an endpoint the
-- platform caps per tenant, 'family:endpoint' ('powerbi-admin:refreshables'). A 429 on such an
-- endpoint lowers Vigia's cap on it until lowered_until (every instance reads the same row).
ALTER TABLE tenant_api_budget
  ADD COLUMN lowered_cap integer,
  ADD COLUMN lowered_until timestamptz,
  ADD COLUMN throttled_at timestamptz;
