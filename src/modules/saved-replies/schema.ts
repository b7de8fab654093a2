import { Type } from '@sinclair/typebox';
import { nameSchemas } from '../../http/schemas.js';

const Name = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^[a-z0-9][a-z0-9_-]*$',
  description: 'Short name, typed as /name in the inbox: lower-case letters, digits, - and _',
});
const Content = Type.String({ minLength: 1, maxLength: 5000 });

export const SavedReply = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    content: Type.String(),
    created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SavedReply' },
);

export const SavedReplyList = Type.Object({ data: Type.Array(SavedReply) });

export const SavedReplyBody = Type.Object({ name: Name, content: Content }, { additionalProperties: false });

export const SavedReplyPatch = Type.Object(
  { name: Type.Optional(Name), content: Type.Optional(Content) },
  { additionalProperties: false },
);

nameSchemas({ SavedReply });
