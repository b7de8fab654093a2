/** The public surface of the tenants module: what other modules may import (see docs/ARCHITECTURE.md). */
export { bumpKnowledgeVocabulary, findTenant, findTenantPlan, lockTenant } from './repository.js';
export { createTenant } from './service.js';
