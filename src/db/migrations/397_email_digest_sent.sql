-- Each recipient an `info` digest (one destination's openings of one period, docs/notifications.md
-- "Digest of info incidents") was accepted for, with its Message-ID: a digest retried after the
-- relay failed mid-way sends only to the recipients not yet accepted. Removed when the digest is
-- marked sent (nothing joins a period after it ended).
CREATE TABLE email_digest_sent (
  destination_id text NOT NULL REFERENCES destinations(id),
  period_end timestamptz NOT NULL,
  address text NOT NULL,
  message_id text NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (destination_id, period_end, address)
);
