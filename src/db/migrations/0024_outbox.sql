-- One durable outbox for everything that leaves the service (webhook deliveries now, channel
-- messages later). A message is written in the caller's transaction and sent by a worker that
-- claims it with FOR UPDATE SKIP LOCKED; the lease (locked_until) hands a crashed sender's
-- claim to another worker. States: pending → sending → sent | retry (→ sending …) | dead.
CREATE TABLE outbox_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- Which sender sends it ('webhook', later 'email', 'widget', …).
  kind varchar(40) NOT NULL,
  -- Send-once key: the same message is never queued twice; senders pass it on to receivers.
  idempotency_key varchar(200) NOT NULL UNIQUE,
  -- Small and id-based: the sender loads what it sends when it sends it.
  payload jsonb NOT NULL,
  status varchar(10) NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'sending', 'sent', 'retry', 'dead')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- Attempts made before the last "send again": the attempt limit counts from here.
  round_start integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  last_status_code integer,
  last_error varchar(500),
  sent_at timestamptz,
  dead_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_messages_due_idx ON outbox_messages (next_attempt_at)
  WHERE status IN ('pending', 'retry', 'sending');
CREATE INDEX outbox_messages_dead_idx ON outbox_messages (tenant_id, dead_at DESC, id DESC)
  WHERE status = 'dead';

-- Webhook deliveries become outbox messages of kind 'webhook' with the same id; the delivery
-- row keeps what is webhook-specific (event, endpoint), the outbox row the sending state.
INSERT INTO outbox_messages (id, tenant_id, kind, idempotency_key, payload, status, attempts,
  next_attempt_at, locked_until, last_status_code, last_error, sent_at, dead_at, created_at, updated_at)
SELECT id, tenant_id, 'webhook', 'webhook:' || id::text, jsonb_build_object('delivery_id', id),
  CASE status WHEN 'pending' THEN (CASE WHEN attempts = 0 THEN 'pending' ELSE 'retry' END)
              WHEN 'delivering' THEN 'sending' WHEN 'succeeded' THEN 'sent' ELSE 'dead' END,
  attempts, next_attempt_at, locked_until, last_status_code, last_error, delivered_at,
  CASE WHEN status = 'failed' THEN updated_at END, created_at, updated_at
FROM webhook_deliveries;

ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_outbox_fk
  FOREIGN KEY (id) REFERENCES outbox_messages(id) ON DELETE CASCADE;
DROP INDEX webhook_deliveries_due_idx;
ALTER TABLE webhook_deliveries DROP COLUMN status;
ALTER TABLE webhook_deliveries DROP COLUMN attempts;
ALTER TABLE webhook_deliveries DROP COLUMN next_attempt_at;
ALTER TABLE webhook_deliveries DROP COLUMN locked_until;
ALTER TABLE webhook_deliveries DROP COLUMN last_status_code;
ALTER TABLE webhook_deliveries DROP COLUMN last_error;
ALTER TABLE webhook_deliveries DROP COLUMN delivered_at;
ALTER TABLE webhook_deliveries DROP COLUMN updated_at;

-- Every attempt of every outbox message (webhook attempts keep their log).
ALTER TABLE webhook_delivery_attempts RENAME TO outbox_attempts;
ALTER TABLE outbox_attempts RENAME COLUMN delivery_id TO message_id;
ALTER TABLE outbox_attempts DROP CONSTRAINT webhook_delivery_attempts_delivery_id_fkey;
ALTER TABLE outbox_attempts ADD CONSTRAINT outbox_attempts_message_fk
  FOREIGN KEY (message_id) REFERENCES outbox_messages(id) ON DELETE CASCADE;

-- The delivery log as the API shows it: a delivery with its outbox state in webhook terms.
CREATE VIEW webhook_delivery_log AS
SELECT d.id, d.tenant_id, d.event_id, d.endpoint_id,
  CASE o.status WHEN 'sending' THEN 'delivering' WHEN 'sent' THEN 'succeeded'
    WHEN 'dead' THEN 'failed' ELSE 'pending' END AS status,
  o.attempts, o.next_attempt_at, o.locked_until, o.last_status_code, o.last_error,
  o.sent_at AS delivered_at, d.created_at, o.updated_at
FROM webhook_deliveries d JOIN outbox_messages o ON o.id = d.id;
