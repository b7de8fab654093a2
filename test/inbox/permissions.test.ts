import { describe, expect, it } from 'vitest';
import { PERMISSIONS, ROLES, hasPermission, type Role } from '../../src/modules/auth/permissions.js';

/** Who may work in the inbox, and what the agent role may not touch. */
const INBOX: Record<Role, boolean> = { owner: true, admin: true, editor: true, viewer: false, agent: true };
const AGENT = new Set(['conversation:view', 'conversation:review', 'contact:view', 'inbox:work']);

describe('permission matrix with the agent role', () => {
  it.each(ROLES)('%s: inbox:work as the table says, conversation:view for all', (role) => {
    expect(hasPermission(role, 'inbox:work')).toBe(INBOX[role]);
    // Rating the bot's replies in the review: the same people who answer customers.
    expect(hasPermission(role, 'conversation:review')).toBe(INBOX[role]);
    expect(hasPermission(role, 'conversation:view')).toBe(true);
  });

  it.each(PERMISSIONS)(
    'agent: %s only when it is the inbox, conversations or reading contacts',
    (permission) => {
      expect(hasPermission('agent', permission)).toBe(AGENT.has(permission));
    },
  );
});
