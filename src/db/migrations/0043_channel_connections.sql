-- Messaging channels of a bot (WhatsApp through Meta's Cloud API, SMS and WhatsApp through
-- Twilio, Twilio voice numbers): one connection per row. Secrets (access token, app secret,
-- verify token, auth token) are stored encrypted (AES-256-GCM, key id beside the value) and
-- never leave the service.
CREATE TABLE channel_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  kind varchar(20) NOT NULL
    CHECK (kind IN ('whatsapp_cloud', 'twilio_sms', 'twilio_whatsapp', 'twilio_voice')),
  name varchar(200) NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  -- Settings without secrets: phone number id, account sid, numbers, public base URL, quiet window.
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Encrypted secrets by name ({"access_token": "v1:…"}); write-only in the API.
  secrets jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_inbound_at timestamptz,
  last_outbound_at timestamptz,
  last_error varchar(1000),
  last_error_code varchar(20),
  last_error_at timestamptz,
  -- Set when the provider refused the credentials (Meta 190, HTTP 401): cleared by a new secret
  -- or the next accepted send.
  unhealthy_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_connections_tenant_bot_idx ON channel_connections (tenant_id, bot_id, created_at, id);

-- Provider error codes per connection and day, for the health view.
CREATE TABLE channel_error_counts (
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  day date NOT NULL,
  code varchar(20) NOT NULL,
  count integer NOT NULL DEFAULT 0,
  PRIMARY KEY (connection_id, day, code)
);

-- Every message a customer sent, once: unique per (connection, provider message id) — Meta's
-- wamid, Twilio's MessageSid — so a webhook delivered several times is stored (and answered) once.
-- Messages of one customer that arrive within the connection's quiet window are answered as one
-- turn (turn_id), in the order of the provider's timestamp.
CREATE TABLE channel_inbound (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  provider_message_id varchar(200) NOT NULL,
  -- E.164, without the whatsapp: prefix.
  from_number varchar(32) NOT NULL,
  -- text, choice, media, location, reaction, unsupported, opt_out, opt_in
  kind varchar(20) NOT NULL,
  text text NOT NULL DEFAULT '',
  -- A tapped button or list row: {"block_id", "item_id"}, and the message it was tapped on.
  choice jsonb,
  context_id varchar(200),
  provider_ts timestamptz NOT NULL,
  status varchar(20) NOT NULL DEFAULT 'received'
    CHECK (status IN ('received', 'processing', 'answered', 'skipped', 'failed', 'handed_over')),
  skip_reason varchar(200),
  turn_id uuid,
  conversation_id uuid REFERENCES conversations(id) ON DELETE SET NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (connection_id, provider_message_id)
);
CREATE INDEX channel_inbound_pending_idx ON channel_inbound (connection_id, from_number, provider_ts)
  WHERE status = 'received';
CREATE INDEX channel_inbound_number_idx ON channel_inbound (connection_id, from_number, provider_ts DESC);
CREATE INDEX channel_inbound_conversation_idx ON channel_inbound (conversation_id);

-- Every message the service sends (or will send) on a connection: the bot's replies, a person's
-- replies from the inbox, notices and templates. Its status follows the provider's status
-- webhooks and never moves backwards (queued < sending < unknown < accepted < sent < delivered
-- < read; failed and undelivered settle it).
CREATE TABLE channel_outbound (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  conversation_id uuid REFERENCES conversations(id) ON DELETE CASCADE,
  -- The conversation message it carries (a person's reply; the bot's reply).
  message_id uuid,
  to_number varchar(32) NOT NULL,
  -- reply (the bot), person (the inbox), notice (a fixed text), template
  purpose varchar(20) NOT NULL,
  automated boolean NOT NULL DEFAULT true,
  -- What goes out: {"parts": [...provider request bodies without the recipient...], "block": …}
  body jsonb NOT NULL,
  status varchar(20) NOT NULL DEFAULT 'queued',
  status_rank integer NOT NULL DEFAULT 0,
  provider_message_ids text[] NOT NULL DEFAULT '{}',
  error_code varchar(20),
  error_text varchar(1000),
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channel_outbound_conversation_idx ON channel_outbound (conversation_id, created_at);
CREATE INDEX channel_outbound_number_idx ON channel_outbound (connection_id, to_number, created_at DESC);
CREATE INDEX channel_outbound_provider_idx ON channel_outbound USING gin (provider_message_ids);

-- Status webhooks as received, once per (connection, provider message, status).
CREATE TABLE channel_status_events (
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  provider_message_id varchar(200) NOT NULL,
  status varchar(20) NOT NULL,
  error_code varchar(20),
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, provider_message_id, status)
);

-- Numbers that opted out (STOP …) of a connection's messages, until they write START.
CREATE TABLE channel_opt_outs (
  connection_id uuid NOT NULL REFERENCES channel_connections(id) ON DELETE CASCADE,
  number varchar(32) NOT NULL,
  opted_out_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, number)
);
