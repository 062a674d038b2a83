-- Gateways made hot by evidence: a refresh (or data-source check) failed with an error of the
-- gateway family on an item bound to the gateway. The gateway collector checks a marked gateway
-- every run until the mark expires, even while its turn in the rotation is far away. Shared by
-- every instance through this table; written by gateway-evidence.ts only.
CREATE TABLE gateway_hot_marks (
  tenant_ref text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- The platform's gateway id, lower case.
  gateway_id text NOT NULL,
  -- When the failure that is the evidence happened: a newer failure renews the mark, the same one does not.
  evidence_at timestamptz NOT NULL,
  marked_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- What was seen (error code and the item), for people reading the table.
  reason text NOT NULL,
  PRIMARY KEY (tenant_ref, gateway_id)
);
