-- Grows with every change to a tenant's events (created, edited, status, capacity counts,
-- deleted). The chat reads it with the bot, so the list of bookable events it offers in the
-- prompt can be cached per version: a cached list is never used once an event has changed,
-- on any instance. (Time alone only ends offers: a cached list also expires at its first
-- booking deadline.)
ALTER TABLE tenants ADD COLUMN events_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION events_bump_version() RETURNS trigger AS $$
BEGIN
  UPDATE tenants SET events_version = events_version + 1
  WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER events_bump_version
  AFTER INSERT OR UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION events_bump_version();
