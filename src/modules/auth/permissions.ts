/** Roles of dashboard users and what each may do. A closed list: routes name one permission. */
export const ROLES = ['owner', 'admin', 'editor', 'viewer', 'agent'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  'bot:view',
  'bot:edit',
  'knowledge:view',
  'knowledge:edit',
  'conversation:view',
  'event:view',
  'event:edit',
  'contact:view',
  'contact:edit',
  'usage:view',
  'webhook:manage',
  'api_key:manage',
  'user:manage',
  // Answering customers in the inbox: claim, reply, note, give back, close.
  'inbox:work',
  // Rating the bot's replies good or bad in the conversation review.
  'conversation:review',
  // Keeping the team's saved replies of the inbox.
  'saved_reply:manage',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEW: Permission[] = [
  'bot:view',
  'knowledge:view',
  'conversation:view',
  'event:view',
  'contact:view',
  'usage:view',
];
const EDIT: Permission[] = [
  ...VIEW,
  'bot:edit',
  'knowledge:edit',
  'event:edit',
  'contact:edit',
  'inbox:work',
  'conversation:review',
  'saved_reply:manage',
];
// Agents answer customers: the inbox and the tenant's conversations, no bot or team settings.
const AGENT: Permission[] = ['conversation:view', 'conversation:review', 'contact:view', 'inbox:work'];
// Admins manage the team too; granting, removing and changing the owner role stays with owners
// (see users-rules.ts).
const ADMIN: Permission[] = [...EDIT, 'webhook:manage', 'api_key:manage', 'user:manage'];

export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(ADMIN),
  admin: new Set(ADMIN),
  editor: new Set(EDIT),
  viewer: new Set(VIEW),
  agent: new Set(AGENT),
};

export function hasPermission(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}
