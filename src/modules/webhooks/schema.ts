import { Type, type Static } from '@sinclair/typebox';
import { WEBHOOK_EVENT_TYPES } from './event-types.js';
import { PageQuery } from '../../shared/pagination.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const EventTypeSchema = Type.Union(
  WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'Outbound event type' },
);

const EventTypes = Type.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Event types delivered to this endpoint (at least one)',
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'https:// or http:// URL; must not resolve to an internal address',
});

export const CreateEndpointBody = Type.Object(
  {
    url: Url,
    event_types: EventTypes,
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    is_active: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    is_active: Type.Optional(
      Type.Boolean({ description: 'Switching on again also clears an automatic disable (410 Gone)' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

export const EndpointSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    event_types: Type.Array(Type.String()),
    is_active: Type.Boolean(),
    disabled_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the service switched the endpoint off (e.g. the receiver answered 410)',
    }),
    disabled_at: NullableDateTime,
    previous_secret_expires_at: Type.Union([DateTime, Type.Null()], {
      description: 'After a rotation the previous secret also signs until this time',
    }),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'WebhookEndpoint', title: 'WebhookEndpoint' },
);

export const EndpointWithSecret = Type.Object({
  webhook: EndpointSchema,
  secret: Type.String({ description: 'Signing secret (whsec_…). Shown only now; store it at the receiver.' }),
});

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    event_id: Type.String({ format: 'uuid' }),
    message_id: Type.String({ description: 'The webhook-id header sent with this event' }),
    event_type: Type.String(),
    status: Type.Union(['pending', 'delivering', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
    attempts: Type.Integer(),
    next_attempt_at: NullableDateTime,
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    delivered_at: NullableDateTime,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
);

export const DeliveryDetail = Type.Object({
  delivery: DeliverySchema,
  payload: Type.Unknown({ description: 'The event data sent as `data`' }),
  attempts: Type.Array(
    Type.Object({
      attempt_number: Type.Integer(),
      status_code: Type.Union([Type.Integer(), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()]),
      response_body: Type.Union([Type.String(), Type.Null()], { description: 'First 1000 characters' }),
      duration_ms: Type.Integer(),
      created_at: DateTime,
    }),
  ),
});

export const DeliveriesQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.Union(['pending', 'delivering', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
    ),
  },
  { additionalProperties: false },
);

export const DeliveryParams = Type.Object({
  id: Type.String({ description: 'Webhook endpoint id' }),
  deliveryId: Type.String({ description: 'Delivery id' }),
});

// Inbound lifecycle webhooks.

const ConversationId = Type.String({
  description: 'A conversation of the API key’s tenant (UUID)',
  maxLength: 100,
});

export const ConversationEndedBody = Type.Object(
  {
    conversation_id: ConversationId,
    reason: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const EscalationBody = Type.Object(
  {
    conversation_id: ConversationId,
    reason: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const RatingBody = Type.Object(
  {
    conversation_id: ConversationId,
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    comment: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const LeadBody = Type.Object(
  {
    conversation_id: ConversationId,
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 255 }), Type.Null()])),
    phone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()])),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Merged into the contact' }),
    ),
  },
  { additionalProperties: false },
);

export const LifecycleConversationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  bot_id: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('handed_over')]),
  ended_at: NullableDateTime,
  end_reason: Type.Union([Type.String(), Type.Null()]),
  escalated_at: NullableDateTime,
  escalation_reason: Type.Union([Type.String(), Type.Null()]),
  rating: Type.Union([Type.Integer(), Type.Null()]),
  rating_comment: Type.Union([Type.String(), Type.Null()]),
  rated_at: NullableDateTime,
  contact_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  updated_at: DateTime,
});

export const TransitionResponse = Type.Object({
  conversation: LifecycleConversationSchema,
  changed: Type.Boolean({ description: 'False when the conversation already was in that state' }),
});

export const LeadResponse = Type.Object({
  contact: Type.Object({
    id: Type.String({ format: 'uuid' }),
    name: Type.Union([Type.String(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    phone: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    created_at: DateTime,
    updated_at: DateTime,
  }),
  created: Type.Boolean({ description: 'True when a new contact was created' }),
  conversation_id: Type.String({ format: 'uuid' }),
});
