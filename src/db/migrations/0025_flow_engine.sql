-- The flow engine: what flow steps say (a message's text, an input step's question and the
-- field its answer fills) and where each conversation stands in its bot's flow.

ALTER TABLE flow_steps ADD COLUMN content text CHECK (content IS NULL OR char_length(content) <= 2000);
ALTER TABLE flow_steps ADD COLUMN field_name varchar(100);

CREATE TABLE conversation_flow_states (
  conversation_id uuid PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  -- The step waiting for an answer; no foreign key: a deleted step just resets the position.
  step_id uuid,
  block_id uuid,
  awaiting varchar(10) CHECK (awaiting IS NULL OR awaiting IN ('choice', 'input')),
  -- {<field or block name>: <answer>}
  answers jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(answers) = 'object'),
  started boolean NOT NULL DEFAULT false,
  ended boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_flow_states_tenant_idx ON conversation_flow_states (tenant_id);
