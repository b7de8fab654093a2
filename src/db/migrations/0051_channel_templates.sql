-- The message templates of a WhatsApp connection: Meta's approved templates (read from the
-- WhatsApp Business Account, refreshed on demand and by the message_template_status_update
-- webhook) and Twilio's Content templates. A person sends one into a conversation whose 24-hour
-- window is closed; only an APPROVED one may be sent.
CREATE TABLE channel_templates (
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name varchar(512) NOT NULL,
  language varchar(20) NOT NULL,
  -- Meta's template id, or Twilio's Content SID (HX…).
  provider_id varchar(100),
  -- APPROVED, PENDING, REJECTED, PAUSED, DISABLED, … as the provider names it.
  status varchar(40) NOT NULL,
  category varchar(40),
  -- The body text with its placeholders ({{1}}, {{2}} …) and how many there are.
  body text NOT NULL DEFAULT '',
  parameter_count integer NOT NULL DEFAULT 0,
  components jsonb NOT NULL DEFAULT '[]',
  refreshed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, name, language)
);
CREATE INDEX channel_templates_tenant_idx ON channel_templates (tenant_id);

-- Twilio Content templates Parley created for the bot's buttons and lists, once per distinct
-- item set (key: a hash of the content type and items) and connection.
CREATE TABLE channel_contents (
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  content_key varchar(64) NOT NULL,
  content_sid varchar(64) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, content_key)
);
CREATE INDEX channel_contents_tenant_idx ON channel_contents (tenant_id);
