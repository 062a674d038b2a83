-- The notification log (issue 35, item 3; docs/connectors.md "No echo"): each acknowledgement or
-- resolution Vigia wrote to a tool, so that the tool's webhook reflecting that write is known as
-- Vigia's own echo and ignored. Kept 7 days (the inbound door prunes it).
CREATE TABLE IF NOT EXISTS connector_writes (
  destination_id text NOT NULL,
  alert_id text NOT NULL,
  change text NOT NULL,
  written_at timestamptz NOT NULL,
  PRIMARY KEY (destination_id, alert_id, change, written_at)
);

-- When the alert's acknowledgement last changed, by anyone (acknowledged or un-acknowledged), at
-- the time of that human action: an inbound change older than it is not applied, so Vigia and the
-- tools converge on the latest action. Existing acknowledgements keep their time.
ALTER TABLE alerts ADD COLUMN IF NOT EXISTS ack_changed_at timestamptz;
UPDATE alerts SET ack_changed_at = acknowledged_at WHERE acknowledged_at IS NOT NULL AND ack_changed_at IS NULL;
