import { Type } from '@sinclair/typebox';
import { MAX_PAGE_SIZE, PageQuery } from '../../../shared/pagination.js';
import { ROLES } from '../permissions.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from './rules.js';

export const TEAM_PAGE_SIZE = 50;

const RoleSchema = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  { description: `One of ${ROLES.join(', ')}` },
);

const NewPassword = (description: string) =>
  Type.String({
    minLength: PASSWORD_MIN_LENGTH,
    maxLength: PASSWORD_MAX_BYTES,
    description: `${description}: ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_BYTES} characters (at most ${PASSWORD_MAX_BYTES} bytes in UTF-8)`,
  });

export const TeamUserSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ description: 'Login e-mail, unique across all tenants' }),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  role: RoleSchema,
  is_active: Type.Boolean({ description: 'false: the user cannot sign in and has no sessions' }),
  created_at: Type.String({ format: 'date-time' }),
  last_login_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Last successful sign-in; null when never signed in',
  }),
});

/** Paging of the team lists (users, invitations). */
export const TeamPageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: TEAM_PAGE_SIZE,
      description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${TEAM_PAGE_SIZE})`,
    }),
  ),
  cursor: PageQuery.cursor,
};

export const TeamListQuery = Type.Object(TeamPageQuery);

export const UpdateUserBody = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    is_active: Type.Optional(
      Type.Boolean({ description: 'false deactivates the user and ends their sessions at once' }),
    ),
  },
  { additionalProperties: false },
);

/** Longest avatar address (the users.avatar_url column). */
export const AVATAR_URL_MAX = 2000;

const ProfileName = (what: string) =>
  Type.Optional(
    Type.Union([Type.String({ maxLength: 100, description: what }), Type.Null()], {
      description: `${what}; null or empty clears it`,
    }),
  );

export const UpdateProfileBody = Type.Object(
  {
    first_name: ProfileName('First name, shown to widget visitors on your replies'),
    last_name: ProfileName('Last name'),
    avatar_url: Type.Optional(
      Type.Union(
        [
          Type.String({
            maxLength: AVATAR_URL_MAX,
            pattern: '^https://\\S+$',
            description: 'https address of a picture (no user name or password in it)',
          }),
          Type.Null(),
        ],
        { description: 'Your picture for widget visitors, an https address; null clears it' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1000 }),
    new_password: NewPassword('New password'),
  },
  { additionalProperties: false },
);
