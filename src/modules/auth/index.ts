/** The public surface of the auth module: what other modules may import (see docs/ARCHITECTURE.md). */
export { ApiKeyService, apiKeyCode } from './api-keys.js';
export { currentUser, requireApiKey, requireUser, tenantOfKey } from './guard.js';
export { mailerFor } from './mailer.js';
export { ROLES, type Role } from './permissions.js';
export { findUserByEmail, insertUser } from './repository.js';
export { safeEqual } from './secrets.js';
export { SessionService, type AuthenticatedUser } from './sessions.js';
export { listTeamUsers } from './users/repository.js';
