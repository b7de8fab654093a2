import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../shared/pagination.js';
import { nameSchemas } from '../../http/schemas.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const OutboxMessageSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'For a webhook delivery, the delivery id' }),
  kind: Type.String({ description: "Which sender sends it ('webhook', …)" }),
  status: Type.Union(['pending', 'sending', 'sent', 'retry', 'dead'].map((s) => Type.Literal(s))),
  attempts: Type.Integer({ description: 'Attempts made, over every round' }),
  payload: Type.Unknown({ description: 'What the message refers to (ids)' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed' }),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  next_attempt_at: NullableDateTime,
  dead_at: NullableDateTime,
  created_at: DateTime,
});
nameSchemas({ OutboxMessage: OutboxMessageSchema });

export const DeadQuery = Type.Object(
  {
    ...PageQuery,
    kind: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: "Only this kind ('webhook')" }),
    ),
  },
  { additionalProperties: false },
);

export const MessageParams = Type.Object({ id: Type.String({ description: 'Outbox message id' }) });
