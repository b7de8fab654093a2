-- Conversation review: what each bot reply carried, kept with the message (the reply's
-- knowledge sources with their scores, its actions and blocks, and the hand-over it led to).
ALTER TABLE messages ADD COLUMN sources jsonb;
ALTER TABLE messages ADD COLUMN actions jsonb;
ALTER TABLE messages ADD COLUMN blocks jsonb;
ALTER TABLE messages ADD COLUMN handover_reason varchar(40);
-- The Idempotency-Key of a customer's message kept while people hold the conversation: a
-- repeated request stores it once.
ALTER TABLE messages ADD COLUMN idempotency_key varchar(255);
CREATE UNIQUE INDEX messages_conversation_idempotency_key
  ON messages (conversation_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Staff's verdict on a bot reply: good or bad, with a note. One per reply; the latest wins.
CREATE TABLE message_reviews (
  message_id uuid PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  verdict varchar(4) NOT NULL CHECK (verdict IN ('good', 'bad')),
  note varchar(2000),
  reviewed_by uuid REFERENCES users(id) ON DELETE SET NULL,
  reviewed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX message_reviews_conversation_idx ON message_reviews (conversation_id, verdict);

-- The numbers of the overview, per bot and period.
-- Bot replies (not people's) by time: the share answered from knowledge.
CREATE INDEX messages_bot_replies_idx ON messages (tenant_id, created_at)
  INCLUDE (bot_id, knowledge_used) WHERE role = 'assistant' AND author_user_id IS NULL;
CREATE INDEX messages_bot_replies_per_bot_idx ON messages (bot_id, created_at)
  INCLUDE (knowledge_used) WHERE role = 'assistant' AND author_user_id IS NULL;
-- People's replies of a conversation: the time to the first one after a hand-over.
CREATE INDEX messages_person_replies_idx ON messages (conversation_id, created_at)
  WHERE author_user_id IS NOT NULL;
-- Customers' conversations by start: counted per day without reading the table.
CREATE INDEX conversations_numbers_idx ON conversations (tenant_id, created_at)
  INCLUDE (bot_id, handover_at, escalated_at) WHERE NOT is_test;
-- The dashboard's test conversations, subtracted from the figures.
CREATE INDEX conversations_test_idx ON conversations (tenant_id) WHERE is_test;
-- Hand-overs and ratings by time.
CREATE INDEX conversations_handover_idx ON conversations (tenant_id, handover_at) INCLUDE (bot_id)
  WHERE handover_at IS NOT NULL AND NOT is_test;
CREATE INDEX conversations_rated_idx ON conversations (tenant_id, rated_at) INCLUDE (bot_id, rating)
  WHERE rated_at IS NOT NULL AND NOT is_test;
-- Bookings the bots made (the chat's booking tags).
CREATE INDEX event_bookings_chat_idx ON event_bookings (tenant_id, booked_at)
  WHERE metadata->>'source' = 'chat';
