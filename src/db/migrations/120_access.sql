-- People, their roles per organization, personal API tokens, console sessions, OIDC sign-in
-- attempts and the audit log (docs/access.md).

CREATE TABLE people (
  id           text PRIMARY KEY,
  email        text NOT NULL,
  name         text,
  oidc_issuer  text,
  oidc_subject text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX people_email_key ON people (lower(email));
CREATE UNIQUE INDEX people_oidc_key ON people (oidc_issuer, oidc_subject) WHERE oidc_subject IS NOT NULL;

CREATE TABLE memberships (
  org_id     text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  person_id  text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  role       text NOT NULL CHECK (role IN ('owner', 'operator', 'viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, person_id)
);
CREATE INDEX memberships_person ON memberships (person_id);

CREATE TABLE personal_tokens (
  id           text PRIMARY KEY,
  person_id    text NOT NULL REFERENCES people(id) ON DELETE CASCADE,
  org_id       text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  name         text NOT NULL,
  role         text NOT NULL CHECK (role IN ('owner', 'operator', 'viewer')),
  prefix       text NOT NULL UNIQUE,
  token_hash   text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX personal_tokens_person ON personal_tokens (person_id, created_at DESC);

-- A console session. person_id NULL: signed in with the instance admin token.
-- Sessions end at once when their person loses the last membership (deleted), at sign-out
-- (deleted) and by time (idle_expires_at, expires_at).
CREATE TABLE sessions (
  id_hash         text PRIMARY KEY,
  person_id       text REFERENCES people(id) ON DELETE CASCADE,
  csrf_hash       text NOT NULL,
  -- Roles granted by the identity provider's groups/roles claim at sign-in: [{orgId, role}].
  idp_roles       jsonb NOT NULL DEFAULT '[]',
  created_at      timestamptz NOT NULL,
  idle_expires_at timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX sessions_person ON sessions (person_id);

-- One row per OIDC sign-in under way: consumed (deleted) by the callback, so a state is used once.
CREATE TABLE oidc_logins (
  state_hash    text PRIMARY KEY,
  nonce         text NOT NULL,
  code_verifier text NOT NULL,
  created_at    timestamptz NOT NULL
);

CREATE TABLE audit_log (
  id          text PRIMARY KEY,
  org_id      text,
  at          timestamptz NOT NULL,
  actor_kind  text NOT NULL,
  actor_id    text,
  actor_label text NOT NULL,
  address     text,
  action      text NOT NULL,
  target      text,
  changes     jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_org_at ON audit_log (org_id, at DESC, id DESC);

-- Append-only: no UPDATE, no TRUNCATE, and DELETE only by the retention purge, which sets
-- vigia.audit_purge = 'on' for its own transaction.
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('vigia.audit_purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only';
END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
