-- Mailboxes a bot answers (e-mail channel): one connection per row, of one of three kinds.
-- Secrets (IMAP/SMTP password, Graph client secret, inbound webhook password) are stored
-- encrypted (AES-256-GCM, key id beside the value) and never leave the service.
CREATE TABLE mailboxes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  kind varchar(20) NOT NULL CHECK (kind IN ('imap', 'graph', 'postmark')),
  name varchar(200) NOT NULL,
  -- The address customers write to; replies go out from it.
  address varchar(320) NOT NULL,
  -- Further addresses of the same mailbox (aliases): mail from them is never answered.
  aliases text[] NOT NULL DEFAULT '{}',
  is_active boolean NOT NULL DEFAULT true,
  -- Connection settings without secrets (hosts, ports, user names, tenant and client ids).
  settings jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Encrypted secrets by name ({"password": "v1:…"}); write-only in the API.
  secrets jsonb NOT NULL DEFAULT '{}'::jsonb,
  secret_expires_at timestamptz,
  -- Where the sync stands: IMAP {"INBOX": {"uidvalidity": "…", "last_uid": n}}, Graph {"delta_link": "…"}.
  cursor jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_sync_at timestamptz,
  last_error varchar(1000),
  last_error_at timestamptz,
  token_expires_at timestamptz,
  -- The secret-expiry warnings already given (30, 7, 1 days), so each is given once.
  expiry_warned_days integer,
  -- Exactly one instance holds a mailbox's connection: the holder renews the lease while it holds it.
  lease_holder varchar(100),
  lease_expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mailboxes_tenant_bot_idx ON mailboxes (tenant_id, bot_id, created_at, id);
CREATE INDEX mailboxes_active_idx ON mailboxes (kind) WHERE is_active;

-- Every mail that arrived in a mailbox, once: unique per (mailbox, Message-ID, body hash), so a
-- re-sync or a provider's retry never answers twice, and a reused Message-ID with another body
-- is kept as a new message. A skipped mail keeps its reason.
CREATE TABLE email_inbound (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  mailbox_id uuid NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  message_id varchar(998) NOT NULL,
  body_hash char(64) NOT NULL,
  from_address varchar(320),
  subject varchar(998),
  in_reply_to varchar(998),
  references_ids text[] NOT NULL DEFAULT '{}',
  -- What the customer wrote as received, and the text the bot answered from (quotes stripped).
  body_text text NOT NULL DEFAULT '',
  stripped_text text NOT NULL DEFAULT '',
  status varchar(20) NOT NULL DEFAULT 'received'
    CHECK (status IN ('received', 'answered', 'skipped', 'failed')),
  skip_reason varchar(200),
  conversation_id uuid REFERENCES conversations(id) ON DELETE SET NULL,
  -- The provider's own id of the mail (Graph), to reply to it and mark it read.
  provider_id varchar(500),
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  UNIQUE (mailbox_id, message_id, body_hash)
);
CREATE INDEX email_inbound_mailbox_idx ON email_inbound (tenant_id, mailbox_id, received_at DESC);
CREATE INDEX email_inbound_message_idx ON email_inbound (mailbox_id, message_id);
CREATE INDEX email_inbound_conversation_idx ON email_inbound (conversation_id);

-- Every mail the service sent (or will send) from a mailbox: its Message-ID is fixed when it is
-- queued, so a retried send carries the same id, and a customer's reply finds its thread.
CREATE TABLE email_outbound (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  mailbox_id uuid NOT NULL REFERENCES mailboxes(id) ON DELETE CASCADE,
  conversation_id uuid REFERENCES conversations(id) ON DELETE CASCADE,
  inbound_id uuid REFERENCES email_inbound(id) ON DELETE SET NULL,
  message_id varchar(998) NOT NULL,
  to_address varchar(320) NOT NULL,
  subject varchar(998) NOT NULL,
  in_reply_to varchar(998),
  references_ids text[] NOT NULL DEFAULT '{}',
  body_text text NOT NULL,
  -- Bot replies carry Auto-Submitted: auto-replied; a person's reply does not.
  automated boolean NOT NULL DEFAULT true,
  sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (mailbox_id, message_id)
);
CREATE INDEX email_outbound_conversation_idx ON email_outbound (conversation_id);
