-- Business hours per bot (its widget): {time_zone, hours: [{day 1-7 (Monday = 1), open, close}]}.
-- Null: people answer any time. Outside the hours the widget says when a person answers and
-- asks for an e-mail address.
ALTER TABLE widget_settings ADD COLUMN business_hours jsonb;

-- A widget visitor's address for a person's reply by e-mail (left outside business hours): each
-- reply of a person in the conversation is also sent there through the outbox. Goes with the
-- conversation.
CREATE TABLE widget_reply_addresses (
  conversation_id uuid PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  email varchar(320) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- What the widget tells about the visitor of a conversation, for the inbox: the page they are on,
-- their language and their browser (the last message's). Goes with the conversation.
CREATE TABLE widget_visitor_context (
  conversation_id uuid PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  page_url varchar(2000),
  page_title varchar(300),
  language varchar(35),
  user_agent varchar(500),
  updated_at timestamptz NOT NULL DEFAULT now()
);
