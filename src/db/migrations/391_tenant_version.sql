-- Which version of a tenant connection's credentials a token client was built from. The engine
-- keeps a token client (decrypted credentials) per connection and drops it when the version
-- changes. It was `updated_at`, an application clock: two changes within one clock tick, or
-- instances whose clocks disagree, kept a token client built from replaced credentials. The
-- database counts instead, for every writer: any change to what a token is asked with bumps it.
ALTER TABLE tenants ADD COLUMN IF NOT EXISTS version bigint NOT NULL DEFAULT 1;

CREATE OR REPLACE FUNCTION tenants_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END
$$;

DROP TRIGGER IF EXISTS tenants_version ON tenants;
CREATE TRIGGER tenants_version BEFORE UPDATE ON tenants FOR EACH ROW
  WHEN (OLD.tenant_id IS DISTINCT FROM NEW.tenant_id OR OLD.client_id IS DISTINCT FROM NEW.client_id
        OR OLD.credential_type IS DISTINCT FROM NEW.credential_type OR OLD.credentials_sealed IS DISTINCT FROM NEW.credentials_sealed
        OR OLD.endpoints IS DISTINCT FROM NEW.endpoints)
  EXECUTE FUNCTION tenants_bump_version();
