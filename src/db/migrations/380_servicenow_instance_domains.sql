-- Issue 35: a ServiceNow destination's instance URL must be on *.service-now.com, or on a custom
-- instance domain its organization allows. An owner allows one together with the credentials
-- (`customInstanceDomain` in the destination's create or change); the allowance is kept per
-- organization, so the organization's other ServiceNow destinations may use the same domain.
CREATE TABLE IF NOT EXISTS servicenow_instance_domains (
  org_id text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  host text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, host)
);
