-- Conversation flow of a bot: interactive blocks (choice options the bot can show) and the
-- ordered flow steps that show them. Also makes "exactly one current prompt version per bot"
-- a database rule rather than a service habit.

CREATE TABLE interactive_blocks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  name varchar(100) NOT NULL,
  block_type varchar(20) NOT NULL CHECK (block_type IN ('buttons', 'list')),
  -- [{id, title, description?}]
  items jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(items) = 'array'),
  is_active boolean NOT NULL DEFAULT true,
  -- NULL means "not configured": together with empty option_actions the block is a dead end.
  trigger_mode varchar(20) CHECK (trigger_mode IS NULL OR trigger_mode IN ('auto', 'keyword', 'flow')),
  -- {<item id>: {action: 'goto_step', step_id} | {action: 'reply', text} | {action: 'handover'}}
  option_actions jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(option_actions) = 'object'),
  -- {conditions?: [{field, operator, value?}], keywords?: [string]}
  step_config jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(step_config) = 'object'),
  -- {<exit name>: <flow step id> | 'end'}
  exits jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(exits) = 'object'),
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Target of the flow steps' (bot_id, block_id) key: a step can only show a block of its own bot.
  CONSTRAINT interactive_blocks_bot_id_key UNIQUE (bot_id, id)
);
-- Block names appear in the prompt tags ([BUTTONS:<name>]), so they must be unambiguous per bot.
CREATE UNIQUE INDEX interactive_blocks_bot_name_key ON interactive_blocks (bot_id, lower(name));
CREATE INDEX interactive_blocks_tenant_bot_idx ON interactive_blocks (tenant_id, bot_id, created_at);

CREATE TABLE flow_steps (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  bot_id uuid NOT NULL REFERENCES bots(id) ON DELETE CASCADE,
  step_order integer NOT NULL CHECK (step_order >= 1),
  step_type varchar(20) NOT NULL CHECK (step_type IN ('message', 'block', 'input', 'handover')),
  label varchar(200) NOT NULL,
  icon varchar(50),
  block_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Deferrable so that a whole flow can be renumbered in one statement sequence.
  CONSTRAINT flow_steps_bot_order_key UNIQUE (bot_id, step_order) DEFERRABLE INITIALLY IMMEDIATE,
  -- Removing a block leaves its steps in place, without a block.
  CONSTRAINT flow_steps_block_fkey FOREIGN KEY (bot_id, block_id)
    REFERENCES interactive_blocks (bot_id, id) ON DELETE SET NULL (block_id)
);
CREATE INDEX flow_steps_tenant_bot_idx ON flow_steps (tenant_id, bot_id, step_order);
CREATE INDEX flow_steps_block_idx ON flow_steps (block_id) WHERE block_id IS NOT NULL;

-- Exactly one current version for every bot that has versions. The partial unique index of
-- 0001 forbids two; this deferred check forbids none, at commit, so a transaction may move the
-- flag from one row to another in two statements.
CREATE FUNCTION bot_prompt_versions_check_current() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  target uuid;
  versions integer;
  current_versions integer;
BEGIN
  IF TG_OP = 'DELETE' THEN
    target := OLD.bot_id;
  ELSE
    target := NEW.bot_id;
  END IF;
  SELECT count(*), count(*) FILTER (WHERE is_current)
    INTO versions, current_versions
    FROM bot_prompt_versions WHERE bot_id = target;
  IF versions > 0 AND current_versions <> 1 THEN
    RAISE EXCEPTION 'bot % must have exactly one current prompt version, has %', target, current_versions
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER bot_prompt_versions_exactly_one_current
  AFTER INSERT OR UPDATE OR DELETE ON bot_prompt_versions
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION bot_prompt_versions_check_current();
