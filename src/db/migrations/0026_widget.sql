-- The website widget: per bot a publishable key, the allowed origins, identity verification,
-- the share link, the appearance and a daily message budget; widget conversations.

ALTER TABLE conversations DROP CONSTRAINT IF EXISTS conversations_channel_check;
ALTER TABLE conversations ADD CONSTRAINT conversations_channel_check
  CHECK (channel IN ('email', 'api', 'webhook', 'widget'));

CREATE TABLE widget_settings (
  bot_id uuid PRIMARY KEY REFERENCES bots(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  enabled boolean NOT NULL DEFAULT false,
  -- pk_…: public by design (it sits in the web page); it can only start visitor sessions.
  publishable_key varchar(64) NOT NULL UNIQUE,
  allowed_origins text[] NOT NULL DEFAULT ARRAY[]::text[],
  verified_only boolean NOT NULL DEFAULT false,
  -- HS256 secret of the tenant's identity tokens, encrypted (shared/secrets.ts); null: none yet.
  identity_secret text,
  share_link_enabled boolean NOT NULL DEFAULT false,
  -- Language of the widget's own texts (the bot's replies follow its prompt).
  language varchar(2) NOT NULL DEFAULT 'de' CHECK (language IN ('de', 'en')),
  theme jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(theme) = 'object'),
  daily_message_budget integer NOT NULL DEFAULT 1000 CHECK (daily_message_budget BETWEEN 0 AND 10000000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX widget_settings_tenant_idx ON widget_settings (tenant_id);

-- Widget messages per bot and day (UTC), counted against the daily budget.
CREATE TABLE widget_daily_usage (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  day date NOT NULL,
  messages integer NOT NULL DEFAULT 0,
  PRIMARY KEY (bot_id, day)
);

-- A visitor's open conversation is looked up by bot, channel and sender.
CREATE INDEX conversations_bot_sender_idx ON conversations (bot_id, sender_id, created_at DESC)
  WHERE sender_id IS NOT NULL;
