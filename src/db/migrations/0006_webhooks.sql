-- Outbound webhooks (endpoints, outbox events, deliveries and their attempts), the
-- conversation lifecycle columns (end reason, hand-over, rating, lead contact) and the
-- archived onboarding reminder log.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  url varchar(2000) NOT NULL,
  description varchar(500),
  event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
  is_active boolean NOT NULL DEFAULT true,
  -- The signing secret (whsec_…), encrypted when WEBHOOK_SECRETS_KEY is set (prefix enc1:).
  secret text NOT NULL,
  -- During a rotation the previous secret keeps signing alongside the new one for a while.
  previous_secret text,
  previous_secret_expires_at timestamptz,
  disabled_reason varchar(200),
  disabled_at timestamptz,
  created_by uuid REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id, created_at DESC, id DESC);

-- The outbox: written in the same transaction as the change that caused the event.
CREATE TABLE webhook_events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  type varchar(50) NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_tenant_idx ON webhook_events (tenant_id, created_at DESC);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  status varchar(20) NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- A claimed delivery belongs to its worker until this lease runs out (crash recovery).
  locked_until timestamptz,
  last_status_code integer,
  last_error varchar(500),
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_delivery_attempts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt_number integer NOT NULL,
  status_code integer,
  error varchar(500),
  response_body varchar(1000),
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (delivery_id, attempt_number)
);

-- Conversation lifecycle.
ALTER TABLE conversations ADD COLUMN end_reason varchar(500);
ALTER TABLE conversations ADD COLUMN escalated_at timestamptz;
ALTER TABLE conversations ADD COLUMN escalation_reason varchar(1000);
ALTER TABLE conversations ADD COLUMN rating smallint CHECK (rating IS NULL OR rating BETWEEN 1 AND 5);
ALTER TABLE conversations ADD COLUMN rating_comment varchar(2000);
ALTER TABLE conversations ADD COLUMN rated_at timestamptz;
ALTER TABLE conversations ADD COLUMN contact_id uuid REFERENCES contacts(id) ON DELETE SET NULL;
-- Reopening restarts the inactivity clock without pretending a message was sent.
ALTER TABLE conversations ADD COLUMN reopened_at timestamptz;
-- The inactivity sweep looks only at active conversations by their last activity.
CREATE INDEX conversations_active_activity_idx
  ON conversations ((greatest(coalesce(last_message_at, created_at), coalesce(reopened_at, created_at))))
  WHERE status = 'active';

-- Archived sandbox trial reminders.
CREATE TABLE onboarding_reminders (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  user_email varchar(255) NOT NULL,
  reminder_type varchar(10) NOT NULL,
  template_name varchar(100) NOT NULL,
  status varchar(20) NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'error')),
  error_message text,
  sent_at timestamptz DEFAULT now(),
  created_at timestamptz DEFAULT now(),
  UNIQUE (tenant_id, reminder_type)
);
