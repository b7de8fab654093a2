-- Every quota reservation of a chat request in flight, with a lease bounded by the request's
-- deadline. The answer's storage deletes its row in the same statement; a failed request
-- deletes it and gives the message back in one statement (so a release can be retried without
-- counting twice); a row whose lease ran out (its process died, or the release could not
-- reach the database) is given back by the sweep. So after any outage the month's counter
-- equals the stored exchanges plus the requests still running.
CREATE TABLE chat_reservations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  period date NOT NULL,
  lease_expires_at timestamptz NOT NULL
);
CREATE INDEX chat_reservations_lease_idx ON chat_reservations (lease_expires_at);

-- Which request holds an in-flight idempotency claim: a release retried late never deletes a
-- claim that another request took over in the meantime.
ALTER TABLE chat_idempotency_keys ADD COLUMN claim_id uuid;
