-- Acknowledge links in messages (docs/notifications.md, "Acknowledge from the message"): a link
-- is signed by the server (the key is a row of settings, sealed like every other secret), so
-- nothing is stored when it is made; it is recorded here when it is used, which makes it
-- single-use. Rows are kept past the link's expiry (a used link then says "expired" anyway)
-- and removed by the next use of any link after that.
CREATE TABLE IF NOT EXISTS ack_link_uses (
  link_id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  alert_id text NOT NULL,
  destination_id text NOT NULL,
  used_at timestamptz NOT NULL,
  used_by text,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ack_link_uses_expires ON ack_link_uses (expires_at);

-- An organization may require its people to sign in to the console before an acknowledge link acts.
ALTER TABLE orgs ADD COLUMN IF NOT EXISTS ack_requires_sign_in boolean NOT NULL DEFAULT false;
