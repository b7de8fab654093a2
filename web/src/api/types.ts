import type { paths } from './schema';

/** Shorthands for response bodies of the generated schema. */
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: infer S }
    ? Json<S>
    : R extends { 201: infer S }
      ? Json<S>
      : never
  : never;
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type Me = Ok<'/api/me', 'get'>;
export type Bot = Ok<'/api/bots/{id}', 'get'>;
export type BotPatch = Body<'/api/bots/{id}', 'patch'>;
export type Usage = Ok<'/api/usage', 'get'>;
export type Preflight = Ok<'/api/bots/{id}/preflight', 'get'>;
export type PromptVersions = Ok<'/api/bots/{id}/prompt-versions', 'get'>;
export type PromptDiff = Ok<'/api/bots/{id}/prompt-versions/{versionId}/diff', 'get'>;
export type HitTest = Ok<'/api/bots/{id}/knowledge/search', 'get'>;
export type ChatReply = Ok<'/api/bots/{id}/test-chat', 'post'>;
export type Block = Ok<'/api/bots/{id}/blocks', 'get'>['blocks'][number];
export type BlockBody = Body<'/api/bots/{id}/blocks', 'post'>;
export type FlowStep = Ok<'/api/bots/{id}/flow-steps', 'get'>['steps'][number];
export type ChatBlock = NonNullable<ChatReply['blocks']>[number];
export type Conversation = Ok<'/api/conversations', 'get'>['data'][number];
export type EventRow = Ok<'/api/events', 'get'>['data'][number];
export type EventBody = Body<'/api/events', 'post'>;
export type Booking = Ok<'/api/events/{id}/bookings', 'post'>;
export type Contact = Ok<'/api/contacts', 'get'>['data'][number];
export type ApiKey = Ok<'/api/api-keys', 'get'>['data'][number];

// The event detail and booking list responses are not described in the OpenAPI document yet;
// their types come from the server's serializers instead of being written out again.
import type { serializeBookingWithContact, serializeStatistics } from '@server/modules/events/serialize.js';
export type EventDetail = EventRow & { statistics: ReturnType<typeof serializeStatistics> };
export type BookingWithContact = ReturnType<typeof serializeBookingWithContact>;
export type ConversationDetail = Ok<'/api/conversations/{id}', 'get'>;
export type Webhook = Ok<'/api/webhooks', 'get'>['data'][number];
export type WebhookBody = Body<'/api/webhooks', 'post'>;
