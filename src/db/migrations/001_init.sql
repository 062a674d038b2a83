-- Vigia schema. SQL accepted by PostgreSQL 15 and PGlite (PostgreSQL 18).
-- All timestamps are timestamptz; calendar days are date. Ids are opaque text.

CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE orgs (
  id text PRIMARY KEY,
  name text NOT NULL,
  suspended boolean NOT NULL DEFAULT false,
  escalation_minutes integer,                       -- null disables escalation
  sla_mtta_minutes integer NOT NULL DEFAULT 15,
  sla_mttr_minutes integer NOT NULL DEFAULT 240,
  sla_availability_percent numeric NOT NULL DEFAULT 99.9,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id),
  name text NOT NULL,
  prefix text NOT NULL UNIQUE,                      -- 8-char lookup prefix of the key
  key_hash text NOT NULL,                           -- hex SHA-256 of the whole key
  scopes text[] NOT NULL,
  expires_at timestamptz,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at DESC, id DESC);

CREATE TABLE capacities (
  org_id text NOT NULL REFERENCES orgs(id),
  name text NOT NULL,
  sku text NOT NULL,
  state text NOT NULL,
  region text NOT NULL,
  PRIMARY KEY (org_id, name)
);

CREATE TABLE workspaces (
  org_id text NOT NULL REFERENCES orgs(id),
  remote_id text NOT NULL,
  name text NOT NULL,
  capacity_name text,
  PRIMARY KEY (org_id, remote_id)
);

CREATE TABLE daily_costs (
  org_id text NOT NULL REFERENCES orgs(id),
  date date NOT NULL,
  capacity_name text NOT NULL,
  currency text NOT NULL,
  cost numeric NOT NULL,
  amortized_cost numeric NOT NULL,
  overage_cost numeric NOT NULL,
  PRIMARY KEY (org_id, date, capacity_name, currency)
);

-- One row per incident. An incident is keyed by (org, source_type, source_id, notification_kind);
-- the partial unique index allows one open incident per key, which makes concurrent signals safe.
CREATE TABLE alerts (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id),
  source_type text NOT NULL,
  source_id text NOT NULL,
  source_name text NOT NULL,
  notification_kind text NOT NULL,
  severity text NOT NULL,
  title text NOT NULL,
  message text NOT NULL,
  workspace_name text,
  capacity_name text,
  status text NOT NULL,                             -- open | resolved
  acknowledged boolean NOT NULL DEFAULT false,
  acknowledged_at timestamptz,
  acknowledged_by text,
  created_at timestamptz NOT NULL,                  -- openedAt
  resolved_at timestamptz,
  failure_count integer NOT NULL DEFAULT 1,
  last_occurrence_at timestamptz NOT NULL,
  silenced boolean NOT NULL DEFAULT false,          -- a silence matched when it opened
  silence_id text,
  correlated boolean NOT NULL DEFAULT false,        -- a cause had an open incident when it opened
  cause_alert_ids text[] NOT NULL DEFAULT '{}',
  suppressed boolean NOT NULL DEFAULT false,        -- silenced or correlated and not yet released
  released_at timestamptz,
  escalated_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX alerts_one_open_per_key ON alerts (org_id, source_type, source_id, notification_kind)
  WHERE status = 'open';
CREATE INDEX alerts_org_created ON alerts (org_id, created_at DESC, id DESC);
CREATE INDEX alerts_escalation_due ON alerts (created_at)
  WHERE status = 'open' AND NOT acknowledged AND escalated_at IS NULL;
CREATE INDEX alerts_suppressed ON alerts (org_id) WHERE status = 'open' AND suppressed;

-- Outbox: every emitted event, written in the transaction of the state change, with the exact
-- alert snapshot (SPEC 2.2 shape, camelCase) the delivery body needs.
CREATE TABLE alert_events (
  id text PRIMARY KEY,
  seq bigserial UNIQUE,
  org_id text NOT NULL REFERENCES orgs(id),
  alert_id text NOT NULL REFERENCES alerts(id),
  event text NOT NULL,                              -- alert.opened | alert.acknowledged | alert.escalated | alert.recovered
  occurred_at timestamptz NOT NULL,
  snapshot jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX alert_events_alert ON alert_events (alert_id, seq);

CREATE TABLE silences (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id),
  source_type text,
  source_id text,
  notification_kind text,
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  comment text,
  created_at timestamptz NOT NULL,
  released_at timestamptz                           -- set once incidents it held were released
);
CREATE INDEX silences_org_active ON silences (org_id, ends_at);

CREATE TABLE destinations (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id),
  name text NOT NULL,
  kind text NOT NULL,                               -- webhook | pagerduty | opsgenie | servicenow | azure-devops
  url text,
  config jsonb NOT NULL DEFAULT '{}',
  credentials_sealed text,                          -- sealed JSON of the kind's credentials
  signing_secret_sealed text,                       -- sealed whsec_… (webhook)
  filter jsonb,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX destinations_org ON destinations (org_id) WHERE deleted_at IS NULL;

CREATE TABLE deliveries (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES orgs(id),
  destination_id text NOT NULL REFERENCES destinations(id),
  event_id text REFERENCES alert_events(id),        -- null for test sends
  event_seq bigint,                                 -- order of events of an incident
  alert_id text NOT NULL,
  event text NOT NULL,
  status text NOT NULL,                             -- pending | waiting | succeeded | failed | abandoned
  body text NOT NULL,                               -- exact bytes sent, fixed at creation
  test boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  locked_until timestamptz,
  locked_by text,
  last_status_code integer,
  last_error text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_destination ON deliveries (destination_id, created_at DESC, id DESC);
CREATE INDEX deliveries_alert ON deliveries (destination_id, alert_id, event_seq);
CREATE INDEX deliveries_created ON deliveries (created_at);

CREATE TABLE delivery_attempts (
  delivery_id text NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);

-- External reference a connector created for an incident (ServiceNow sys_id, work item id…).
CREATE TABLE connector_refs (
  destination_id text NOT NULL REFERENCES destinations(id),
  alert_id text NOT NULL,
  ref jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (destination_id, alert_id)
);
