import type { Conversation } from './api/types';

/**
 * The channel kinds of the server's channel registry (src/modules/channels/registry.ts), in its
 * order: the conversations filter offers each, labelled `channels.<kind>`. A server test
 * (test/channels/registry.test.ts) fails when this list or the labels disagree with the registry.
 */
export const CHANNEL_KINDS = [
  'api',
  'webhook',
  'widget',
  'email',
  'test',
  'whatsapp',
  'sms',
  'voice',
] as const satisfies readonly Conversation['channel'][];
