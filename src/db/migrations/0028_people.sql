-- Contacts as people: one contact per e-mail address (case-insensitive) and per phone number
-- (E.164) within a tenant. The keys are columns kept by a trigger, so every writer (dashboard,
-- bookings, leads) is covered and `INSERT … ON CONFLICT` can decide races.
--
-- Existing duplicates are left as they are: the oldest contact of each address or number gets
-- the key, younger duplicates keep theirs unset (not indexed) until the address is changed or
-- they are merged in the dashboard. Merging in SQL could hit the one-open-booking-per-contact
-- rule, which only a person can resolve.
ALTER TABLE contacts ADD COLUMN email_key varchar(255);
ALTER TABLE contacts ADD COLUMN phone_key varchar(20);

CREATE FUNCTION contacts_identity_keys() RETURNS trigger AS $$
DECLARE
  digits text;
BEGIN
  IF TG_OP = 'INSERT' OR NEW.email IS DISTINCT FROM OLD.email THEN
    NEW.email_key := nullif(lower(btrim(NEW.email)), '');
  END IF;
  IF TG_OP = 'INSERT' OR NEW.phone IS DISTINCT FROM OLD.phone THEN
    -- The service stores phone numbers in E.164; separators of other writers are ignored.
    digits := regexp_replace(coalesce(NEW.phone, ''), '[\s().\/-]', '', 'g');
    NEW.phone_key := CASE WHEN digits ~ '^\+[1-9][0-9]{6,14}$' THEN digits END;
  END IF;
  RETURN NEW;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER contacts_identity_keys
  BEFORE INSERT OR UPDATE ON contacts
  FOR EACH ROW EXECUTE FUNCTION contacts_identity_keys();

UPDATE contacts c SET email_key = k.key
FROM (
  SELECT DISTINCT ON (tenant_id, lower(btrim(email))) id, lower(btrim(email)) AS key
  FROM contacts WHERE email IS NOT NULL AND btrim(email) <> ''
  ORDER BY tenant_id, lower(btrim(email)), created_at, id
) k
WHERE c.id = k.id;

UPDATE contacts c SET phone_key = k.key
FROM (
  SELECT DISTINCT ON (tenant_id, regexp_replace(phone, '[\s().\/-]', '', 'g'))
    id, regexp_replace(phone, '[\s().\/-]', '', 'g') AS key
  FROM contacts
  WHERE regexp_replace(coalesce(phone, ''), '[\s().\/-]', '', 'g') ~ '^\+[1-9][0-9]{6,14}$'
  ORDER BY tenant_id, regexp_replace(phone, '[\s().\/-]', '', 'g'), created_at, id
) k
WHERE c.id = k.id;

CREATE UNIQUE INDEX contacts_tenant_email_key ON contacts (tenant_id, email_key) WHERE email_key IS NOT NULL;
CREATE UNIQUE INDEX contacts_tenant_phone_key ON contacts (tenant_id, phone_key) WHERE phone_key IS NOT NULL;

-- Unanswered questions: a group (the question's words after normalisation) marked as handled
-- hides its occurrences up to that moment; a later occurrence shows the group again.
CREATE TABLE unanswered_resolutions (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  group_key varchar(500) NOT NULL,
  resolved_at timestamptz NOT NULL DEFAULT now(),
  resolved_by uuid REFERENCES users(id) ON DELETE SET NULL,
  PRIMARY KEY (tenant_id, bot_id, group_key)
);

-- The bot's replies without knowledge, newest first per tenant (unanswered questions).
CREATE INDEX messages_unanswered_idx ON messages (tenant_id, created_at DESC)
  WHERE role = 'assistant' AND knowledge_used = false;
