-- The voice channel: every phone call (keyed by Twilio's CallSid) with its conversation,
-- state and outcome, and the Gather loop's turns (one answer per call and turn number).

ALTER TABLE conversations DROP CONSTRAINT IF EXISTS conversations_channel_check;
ALTER TABLE conversations ADD CONSTRAINT conversations_channel_check
  CHECK (channel IN ('api', 'webhook', 'widget', 'email', 'test', 'whatsapp', 'sms', 'voice'));

CREATE TABLE voice_calls (
  call_sid varchar(64) PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  -- The channel connection the call came in on (no foreign key: the connections own that table).
  connection_id varchar(64) NOT NULL,
  caller varchar(32) NOT NULL,
  conversation_id uuid,
  language varchar(2) NOT NULL DEFAULT 'de',
  status varchar(20) NOT NULL DEFAULT 'in-progress'
    CHECK (status IN ('refused', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled')),
  -- What the call waits for from the caller: a choice of a block, or the confirmation of a booking.
  pending jsonb,
  silent_prompts int NOT NULL DEFAULT 0,
  turns int NOT NULL DEFAULT 0,
  handoff_reason varchar(40),
  duration_seconds int,
  started_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz
);
CREATE INDEX voice_calls_caller_idx ON voice_calls (connection_id, caller, started_at);
CREATE INDEX voice_calls_tenant_idx ON voice_calls (tenant_id, started_at);

CREATE TABLE voice_turns (
  call_sid varchar(64) NOT NULL REFERENCES voice_calls(call_sid) ON DELETE CASCADE,
  turn int NOT NULL,
  -- The TwiML that answers the turn once it is there; null while the model is still thinking.
  answer text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (call_sid, turn)
);
