import { Type } from '@sinclair/typebox';
import { nameSchemas } from '../../../http/schemas.js';
import { ROLES } from '../permissions.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from '../users/rules.js';
import { TeamPageQuery } from '../users/schema.js';

const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { description: `One of ${ROLES.join(', ')}` },
);

export const InvitationSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ description: 'The invited address' }),
  role: RoleSchema,
  invited_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The user who invited or last resent; null when that user was deleted',
  }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time', description: 'The link works until then' }),
  expired: Type.Boolean({ description: 'true: the link no longer works; resend for a new one' }),
  sent_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the e-mail with the link went out; null without SMTP or when sending failed',
  }),
});

export const IssuedInvitationSchema = Type.Composite([
  InvitationSchema,
  Type.Object({
    delivery: Type.Union([Type.Literal('email'), Type.Literal('link')], {
      description:
        "'email': the link was mailed to the address; 'link': no SMTP is configured, pass accept_url on",
    }),
    accept_url: Type.Union([Type.String(), Type.Null()], {
      description:
        "The link for the invited person, only when delivery is 'link' (shown once; resend makes a new one)",
    }),
  }),
]);

export const InvitationListQuery = Type.Object(TeamPageQuery, { additionalProperties: false });

export const CreateInvitationBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 255, description: 'The address to invite' }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);

const Token = Type.String({ minLength: 1, maxLength: 200, description: 'The token of the invitation link' });

export const InvitationTokenBody = Type.Object({ token: Token }, { additionalProperties: false });

export const InvitationPreviewSchema = Type.Object({
  email: Type.String(),
  role: RoleSchema,
  tenant_name: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
});

export const AcceptInvitationBody = Type.Object(
  {
    token: Token,
    password: Type.String({
      minLength: PASSWORD_MIN_LENGTH,
      maxLength: PASSWORD_MAX_BYTES,
      description: `The new account's password: ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_BYTES} characters (at most ${PASSWORD_MAX_BYTES} bytes in UTF-8)`,
    }),
    first_name: Type.Optional(Type.String({ maxLength: 100 })),
    last_name: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const AcceptedInvitationSchema = Type.Object({
  email: Type.String({ description: 'The login of the new account' }),
  tenant_name: Type.String(),
});

nameSchemas({ Invitation: InvitationSchema, IssuedInvitation: IssuedInvitationSchema });
