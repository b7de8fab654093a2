import type { TestApp } from '../helpers/app.js';
import type { TenantFixture } from '../helpers/factories.js';

export const chatUrl = (botId: string) => `/api/bot-chat/${botId}/chat`;

/** Sends a chat request with the tenant's key. */
export function sendChat(
  t: TestApp,
  tenant: Pick<TenantFixture, 'keyHeaders'>,
  botId: string,
  payload: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: chatUrl(botId),
    headers: { ...tenant.keyHeaders, 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

/** The tenant's quota counter and the tokens of its stored messages. */
export async function usageOf(t: TestApp, tenantId: string) {
  const [counter] = await t.db.query<{ messages_used: number }>(
    'SELECT messages_used FROM usage_counters WHERE tenant_id = $1',
    [tenantId],
  );
  const [tokens] = await t.db.query<{ tokens_used: number }>(
    'SELECT coalesce(sum(tokens), 0)::int AS tokens_used FROM messages WHERE tenant_id = $1',
    [tenantId],
  );
  return { messages_used: counter?.messages_used ?? 0, tokens_used: tokens?.tokens_used ?? 0 };
}

/** Parses a server-sent events body into its events. */
export function parseSse(body: string): { event: string; data: unknown }[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
      return { event, data: JSON.parse(data) as unknown };
    });
}
