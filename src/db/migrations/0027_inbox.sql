-- Inbox: people take over conversations from the bot. `status` keeps the specification's values:
-- active = the bot answers; handed_over without assigned_user_id = waiting for a person;
-- handed_over with assigned_user_id = with a person; ended = closed.
ALTER TABLE conversations ADD COLUMN assigned_user_id uuid REFERENCES users(id) ON DELETE SET NULL;
-- Why the conversation was handed over: no_answer, flow_step, flow_option, customer_request,
-- model or staff (taken over from the dashboard).
ALTER TABLE conversations ADD COLUMN handover_reason varchar(40);
ALTER TABLE conversations ADD COLUMN handover_at timestamptz;
-- The customer's message the bot could not answer (shown highlighted in the inbox).
ALTER TABLE conversations ADD COLUMN handover_question text;
-- Conversations of the dashboard's test chat: apart from customers', not counted in the quota.
ALTER TABLE conversations ADD COLUMN is_test boolean NOT NULL DEFAULT false;
-- The assignee's (or the first reader's) last look; newer customer messages count as unread.
ALTER TABLE conversations ADD COLUMN inbox_read_at timestamptz;
CREATE INDEX conversations_inbox_idx ON conversations (tenant_id, last_message_at DESC, id DESC)
  WHERE status = 'handed_over';

-- A person's reply: role assistant with the author set (shown as from a person, kept in the
-- bot's history after "give back").
ALTER TABLE messages ADD COLUMN author_user_id uuid REFERENCES users(id) ON DELETE SET NULL;

-- Internal notes of staff on a conversation: never sent, never in the bot's history or the
-- message listings.
CREATE TABLE conversation_notes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  author_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  content text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_notes_conversation_idx ON conversation_notes (conversation_id, created_at);

-- The role of the people who answer customers.
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('owner', 'admin', 'editor', 'viewer', 'agent'));
ALTER TABLE user_invitations DROP CONSTRAINT user_invitations_role_check;
ALTER TABLE user_invitations ADD CONSTRAINT user_invitations_role_check
  CHECK (role IN ('owner', 'admin', 'editor', 'viewer', 'agent'));
