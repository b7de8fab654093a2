-- Team management: users can be deactivated (they can no longer sign in and lose their
-- sessions) and the dashboard shows when each user last signed in.
ALTER TABLE users ADD COLUMN is_active boolean NOT NULL DEFAULT true;
ALTER TABLE users ADD COLUMN last_login_at timestamptz;

-- The team list: newest first per tenant, keyset-paginated like every other list.
CREATE INDEX users_tenant_created_idx ON users (tenant_id, created_at DESC, id DESC);
DROP INDEX users_tenant_idx;
