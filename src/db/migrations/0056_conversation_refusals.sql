-- Guard refusals: a turn a channel guard refused before admission (the e-mail loop guard, the
-- widget's daily budget, a messaging customer's opt-out), stored once by the engine, whatever
-- the channel's adapter keeps of it on its own records. The inbox shows each in the
-- conversation's timeline as "nicht beantwortet, weil …". A refused turn that opens no
-- conversation has none; the customer's sender id is kept so an erasure finds it.
CREATE TABLE conversation_refusals (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  conversation_id uuid REFERENCES conversations(id) ON DELETE CASCADE,
  channel varchar(20) NOT NULL,
  sender_id text,
  guard varchar(40) NOT NULL,
  code varchar(40) NOT NULL,
  reason varchar(60) NOT NULL,
  -- The start of the customer's message (500 characters at most).
  message_excerpt text NOT NULL,
  -- The turn's Idempotency-Key: the same message retried is stored once.
  idempotency_key text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX conversation_refusals_key_idx ON conversation_refusals (tenant_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX conversation_refusals_conversation_idx ON conversation_refusals (conversation_id, created_at)
  WHERE conversation_id IS NOT NULL;
CREATE INDEX conversation_refusals_sender_idx ON conversation_refusals (tenant_id, sender_id)
  WHERE sender_id IS NOT NULL;
