-- E-mail destinations (docs/notifications.md, "E-mail").
-- The organization's Reply-To for the alert mail it receives (null: no Reply-To header).
ALTER TABLE orgs ADD COLUMN email_reply_to text;

-- What the relay last said about a recipient of an e-mail destination, when it refused it for good
-- (a 5xx answer to RCPT TO): the mark is on the recipient, not on the destination; a later message
-- the relay accepts for that address removes it.
CREATE TABLE email_recipient_marks (
  destination_id text NOT NULL REFERENCES destinations(id),
  address text NOT NULL,
  refused_at timestamptz NOT NULL,
  reply text NOT NULL,
  PRIMARY KEY (destination_id, address)
);

-- Each recipient a delivery's message was accepted for, with its Message-ID: a retried attempt
-- sends only to those not yet accepted. Deleted with its delivery.
CREATE TABLE email_sent (
  delivery_id text NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  address text NOT NULL,
  message_id text NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, address)
);
