import { Type } from '@sinclair/typebox';
import { ROLES } from './permissions.js';
import { nameSchemas } from '../../http/schemas.js';

export const LoginBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 255 }),
    password: Type.String({ minLength: 1, maxLength: 1000 }),
  },
  { additionalProperties: false },
);

export const PublicUserSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  tenant_id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Type.Union(ROLES.map((r) => Type.Literal(r))),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  company: Type.Union([Type.String(), Type.Null()]),
  avatar_url: Type.Union([Type.String(), Type.Null()], {
    description: 'https address of the picture widget visitors see next to the name on replies; null: none',
  }),
  created_at: Type.String({ format: 'date-time' }),
});

const SessionPermissions = Type.Array(Type.String(), { description: "What the user's role may do" });
const SessionTenant = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  plan_id: Type.String(),
});

export const LoginResponse = Type.Object({
  token: Type.String({ description: 'Session token; also set as the HttpOnly cookie parley_session' }),
  expires_at: Type.String({ format: 'date-time' }),
  user: PublicUserSchema,
  permissions: Type.Array(Type.String(), {
    description:
      "What the user's role may do, as GET /api/me answers: the dashboard signs in without asking again",
  }),
  tenant: SessionTenant,
});

export const MeResponse = Type.Object({
  user: PublicUserSchema,
  permissions: SessionPermissions,
  tenant: SessionTenant,
});

export const ApiKeyMetadataSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.Union([Type.String(), Type.Null()]),
  key_prefix: Type.String({ description: 'First 12 characters of the key' }),
  is_active: Type.Boolean(),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'Absolute expiry' })),
    expires_in_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Relative expiry' }),
    ),
  },
  { additionalProperties: false },
);

export const CreateApiKeyResponse = Type.Object({
  key: Type.String({ description: 'The plain key. Shown once; only its hash is stored.' }),
  api_key: ApiKeyMetadataSchema,
});

// Named component schemas of the OpenAPI document.
nameSchemas({ User: PublicUserSchema, ApiKey: ApiKeyMetadataSchema, LoginResponse: LoginResponse });
