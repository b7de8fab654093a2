-- Core schema: plans, tenants, subscriptions, users, sessions, API keys, bots,
-- conversations, messages, usage counters, contacts and prompt versions.
-- Every tenant-owned table carries tenant_id and is removed with its tenant.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Plans are a global catalogue (not tenant data).
CREATE TABLE plans (
  id text PRIMARY KEY,
  name text NOT NULL,
  is_sandbox boolean NOT NULL DEFAULT false,
  monthly_message_quota integer CHECK (monthly_message_quota IS NULL OR monthly_message_quota >= 0),
  api_access boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO plans (id, name, is_sandbox, monthly_message_quota, api_access) VALUES
  ('sandbox', 'Sandbox trial', true, 200, true),
  ('starter', 'Starter', false, 1000, true),
  ('business', 'Business', false, 10000, true),
  ('enterprise', 'Enterprise', false, NULL, true),
  ('dashboard', 'Dashboard only', false, 1000, false);

CREATE TABLE tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name varchar(200) NOT NULL,
  industry_code varchar(50),
  message_quota_override integer CHECK (message_quota_override IS NULL OR message_quota_override >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE subscriptions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL UNIQUE REFERENCES tenants(id) ON DELETE CASCADE,
  plan_id text NOT NULL REFERENCES plans(id),
  status varchar(20) NOT NULL DEFAULT 'active'
    CHECK (status IN ('trial', 'active', 'past_due', 'cancelled')),
  trial_start timestamptz,
  trial_ends_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  email varchar(255) NOT NULL,
  password_hash text NOT NULL,
  role varchar(20) NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  first_name varchar(100),
  last_name varchar(100),
  phone varchar(50),
  company varchar(200),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_tenant_idx ON users (tenant_id);

CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash char(64) NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name varchar(100),
  key_prefix char(12) NOT NULL,
  key_hash text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  expires_at timestamptz,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_prefix_idx ON api_keys (key_prefix);
-- Only one active API key per tenant.
CREATE UNIQUE INDEX api_keys_one_active_per_tenant ON api_keys (tenant_id) WHERE is_active;

CREATE TABLE bots (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name varchar(200) NOT NULL,
  description text,
  kind varchar(20) NOT NULL DEFAULT 'standard' CHECK (kind IN ('standard', 'smart', 'specialized')),
  is_active boolean NOT NULL DEFAULT true,
  status varchar(20) NOT NULL DEFAULT 'active' CHECK (status IN ('draft', 'active', 'disabled')),
  system_prompt text NOT NULL DEFAULT '',
  system_prompt_generated text,
  knowledge_strictness smallint NOT NULL DEFAULT 3 CHECK (knowledge_strictness BETWEEN 1 AND 5),
  knowledge_min_score real CHECK (knowledge_min_score IS NULL OR (knowledge_min_score >= 0 AND knowledge_min_score <= 1)),
  emoji_usage smallint NOT NULL DEFAULT 0 CHECK (emoji_usage BETWEEN 0 AND 10),
  formal_address boolean NOT NULL DEFAULT true,
  industry_code varchar(50),
  model varchar(100),
  channels text[] NOT NULL DEFAULT ARRAY['api']::text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bots_tenant_created_idx ON bots (tenant_id, created_at DESC, id DESC);

CREATE TABLE conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  channel varchar(20) NOT NULL DEFAULT 'api' CHECK (channel IN ('email', 'api', 'webhook')),
  sender_id varchar(255),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  status varchar(20) NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended', 'handed_over')),
  message_count integer NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  ended_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_tenant_created_idx ON conversations (tenant_id, created_at DESC, id DESC);
CREATE INDEX conversations_bot_idx ON conversations (bot_id, created_at DESC);

CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  role varchar(20) NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
  content text NOT NULL,
  channel varchar(20) NOT NULL DEFAULT 'api',
  tokens integer NOT NULL DEFAULT 0,
  model varchar(100),
  knowledge_used boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_conversation_seq_idx ON messages (conversation_id, seq);
CREATE INDEX messages_tenant_created_idx ON messages (tenant_id, created_at);

-- Monthly usage per tenant; period is the first day of the calendar month (UTC).
CREATE TABLE usage_counters (
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  period date NOT NULL,
  messages_used integer NOT NULL DEFAULT 0 CHECK (messages_used >= 0),
  tokens_used bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, period)
);

-- Contacts: people a tenant talks to (bookings, leads). sender_id links a chat sender.
CREATE TABLE contacts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name varchar(200),
  email varchar(255),
  phone varchar(50),
  sender_id varchar(255),
  channel varchar(20),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX contacts_tenant_sender_key ON contacts (tenant_id, sender_id) WHERE sender_id IS NOT NULL;
CREATE INDEX contacts_tenant_created_idx ON contacts (tenant_id, created_at DESC, id DESC);

CREATE TABLE bot_prompt_versions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  prompt_text text NOT NULL,
  version_name varchar(100),
  change_notes text,
  version_number integer NOT NULL DEFAULT 1 CHECK (version_number >= 1),
  is_current boolean NOT NULL DEFAULT false,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (bot_id, version_number)
);
-- At most one current version per bot; services keep it at exactly one.
CREATE UNIQUE INDEX bot_prompt_versions_one_current ON bot_prompt_versions (bot_id) WHERE is_current;
