-- Saved replies: the team's text snippets for the inbox, inserted with `/name` in the reply box.
-- The short name is unique per tenant (case-insensitive).
CREATE TABLE saved_replies (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name varchar(40) NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9_-]*$'),
  content text NOT NULL CHECK (length(content) BETWEEN 1 AND 5000),
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, name)
);
