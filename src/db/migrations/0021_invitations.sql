-- Team invitations: an owner or admin invites an e-mail address with a role; the person
-- accepts through a link only they receive (or that the inviter passes on) and sets their own
-- password. Only the SHA-256 of the link's token is stored. An accepted invitation is deleted
-- in the transaction that creates the user; a revoked one is deleted too.
CREATE TABLE user_invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  email varchar(255) NOT NULL,
  role varchar(20) NOT NULL CHECK (role IN ('owner', 'admin', 'editor', 'viewer')),
  token_hash text NOT NULL,
  invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE UNIQUE INDEX user_invitations_token_key ON user_invitations (token_hash);
-- One pending invitation per address and tenant; the list is newest first.
CREATE UNIQUE INDEX user_invitations_tenant_email_key ON user_invitations (tenant_id, lower(email));
CREATE INDEX user_invitations_tenant_created_idx ON user_invitations (tenant_id, created_at DESC, id DESC);
