-- The `info` digest of e-mail destinations (docs/notifications.md, "Digest of info incidents"):
-- each digested opening waits here until its period ends, then one message per destination and
-- period lists them. claimed_until is the lease of the pass sending it; sent_at marks it done.
CREATE TABLE email_digest_items (
  delivery_id text PRIMARY KEY REFERENCES deliveries(id) ON DELETE CASCADE,
  org_id text NOT NULL REFERENCES orgs(id),
  destination_id text NOT NULL REFERENCES destinations(id),
  body jsonb NOT NULL,
  period_end timestamptz NOT NULL,
  claimed_until timestamptz,
  sent_at timestamptz
);
CREATE INDEX email_digest_items_due ON email_digest_items (period_end) WHERE sent_at IS NULL;
