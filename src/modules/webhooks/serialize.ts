import type { AttemptRow } from '../outbox/index.js';
import type { DeliveryRow, EndpointRow } from './repository.js';
import { messageId } from './sender.js';

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

/** The endpoint as the dashboard sees it: never the secret. */
export function serializeEndpoint(endpoint: EndpointRow) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    event_types: endpoint.event_types,
    is_active: endpoint.is_active,
    disabled_reason: endpoint.disabled_reason,
    disabled_at: iso(endpoint.disabled_at),
    previous_secret_expires_at:
      endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at.getTime() > Date.now()
        ? endpoint.previous_secret_expires_at.toISOString()
        : null,
    created_at: endpoint.created_at.toISOString(),
    updated_at: endpoint.updated_at.toISOString(),
  };
}

export function serializeDelivery(delivery: DeliveryRow) {
  const open = delivery.status === 'pending' || delivery.status === 'delivering';
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    message_id: messageId(delivery.event_id),
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: open ? delivery.next_attempt_at.toISOString() : null,
    last_status_code: delivery.last_status_code,
    last_error: delivery.last_error,
    delivered_at: iso(delivery.delivered_at),
    created_at: delivery.created_at.toISOString(),
    updated_at: delivery.updated_at.toISOString(),
  };
}

export function serializeAttempt(attempt: AttemptRow) {
  return { ...attempt, created_at: attempt.created_at.toISOString() };
}
