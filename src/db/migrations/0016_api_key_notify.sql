-- Every change that can end an API key's validity (deactivation, expiry, deletion) is
-- announced on the broadcast channel, whoever makes it: the server, the CLI, another
-- instance or an operator's SQL. Servers on PostgreSQL without Redis listen on it and drop
-- the key from their cache at once (see src/coordination/postgres.ts).
CREATE FUNCTION api_keys_announce_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('parley_broadcast', 'api-key-revoked' || chr(10) || OLD.id::text);
    RETURN OLD;
  END IF;
  IF NEW.is_active IS DISTINCT FROM OLD.is_active
     OR NEW.expires_at IS DISTINCT FROM OLD.expires_at
     OR NEW.key_hash IS DISTINCT FROM OLD.key_hash THEN
    PERFORM pg_notify('parley_broadcast', 'api-key-revoked' || chr(10) || NEW.id::text);
  END IF;
  RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER api_keys_announce_change
  AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION api_keys_announce_change();
