-- How a webhook destination signs its deliveries: 'service' (X-Service-Signature only) or
-- 'service+standard' (also the Standard Webhooks headers webhook-id/-timestamp/-signature).
-- Existing destinations keep signing exactly as before. Connector rows carry the default and
-- ignore it.
ALTER TABLE destinations
  ADD COLUMN signature_scheme text NOT NULL DEFAULT 'service'
  CONSTRAINT destinations_signature_scheme_known CHECK (signature_scheme IN ('service', 'service+standard'));
