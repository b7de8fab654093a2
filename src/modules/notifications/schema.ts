import { Type } from '@sinclair/typebox';
import { PageQuery } from '../../shared/pagination.js';
import { NOTIFICATION_TYPES } from './repository.js';
import { nameSchemas } from '../../http/schemas.js';

export const NotificationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: Type.Union(NOTIFICATION_TYPES.map((t) => Type.Literal(t))),
    title: Type.String(),
    body: Type.String(),
    event_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    booking_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    data: Type.Record(Type.String(), Type.Unknown()),
    read_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Notification' },
);

export const NotificationListQuery = Type.Object({
  ...PageQuery,
  unread: Type.Optional(Type.Boolean({ description: 'true: only unread; false: only read' })),
  event_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only notifications of this event' })),
});

// Named component schemas of the OpenAPI document.
nameSchemas({ Notification: NotificationSchema });
