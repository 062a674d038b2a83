-- The public API caches keys that were valid (src/public-api/key-cache.ts). These triggers tell
-- every instance at once, through NOTIFY on vigia_api_keys, when a key's validity or its
-- organization's suspension changes, whoever makes the change (admin API, a script, psql).
-- Payloads: 'key:<id>' and 'org:<id>'. NOTIFY is sent at commit, so a rolled-back change says nothing.
CREATE FUNCTION vigia_notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('vigia_api_keys', 'key:' || OLD.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_validity_changed
  AFTER UPDATE OF revoked_at, expires_at, scopes, org_id ON api_keys
  FOR EACH ROW EXECUTE FUNCTION vigia_notify_api_key_change();

CREATE TRIGGER api_keys_deleted
  AFTER DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION vigia_notify_api_key_change();

CREATE FUNCTION vigia_notify_org_suspension_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('vigia_api_keys', 'org:' || OLD.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER orgs_suspension_changed
  AFTER UPDATE OF suspended ON orgs
  FOR EACH ROW WHEN (OLD.suspended IS DISTINCT FROM NEW.suspended)
  EXECUTE FUNCTION vigia_notify_org_suspension_change();

CREATE TRIGGER orgs_deleted
  AFTER DELETE ON orgs
  FOR EACH ROW EXECUTE FUNCTION vigia_notify_org_suspension_change();
