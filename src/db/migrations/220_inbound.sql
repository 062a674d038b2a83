-- Inbound events from the ITSM tools (docs/connectors.md, "Acknowledging in the tool"): one
-- inbound address per connector destination, its secrets (sealed JSON list, several active while
-- a secret is being rotated) and the counters the destination view shows.
CREATE TABLE inbound_endpoints (
  destination_id text PRIMARY KEY REFERENCES destinations(id),
  org_id text NOT NULL REFERENCES orgs(id),
  enabled boolean NOT NULL,
  secrets_sealed text,                              -- sealed JSON [{secret, source, expiresAt}]
  last_event_at timestamptz,
  applied bigint NOT NULL DEFAULT 0,
  ignored bigint NOT NULL DEFAULT 0,
  refused bigint NOT NULL DEFAULT 0,
  last_refusal text,
  last_refusal_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Event ids already taken (PagerDuty X-Webhook-Id, Azure DevOps subscription + notification,
-- ServiceNow sys_id + sys_mod_count, Opsgenie alert + action + updatedAt): each applied once.
CREATE TABLE inbound_seen_events (
  destination_id text NOT NULL,
  event_key text NOT NULL,
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (destination_id, event_key)
);
CREATE INDEX inbound_seen_events_age ON inbound_seen_events (seen_at);

-- The tool's time of the last change applied per (destination, alert): an older event arriving
-- later (out of order) changes nothing.
CREATE TABLE inbound_alert_versions (
  destination_id text NOT NULL,
  alert_id text NOT NULL,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (destination_id, alert_id)
);
