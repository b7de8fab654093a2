import type { TestApp } from '../helpers/app.js';
import type { TenantFixture } from '../helpers/factories.js';
import { recordSecret } from '../helpers/log-sink.js';

export const SITE = 'https://kurse.example';

export interface WidgetBot {
  botId: string;
  publishableKey: string;
}

/** A bot with its widget switched on for SITE (and more settings when given). */
export async function widgetBot(
  t: TestApp,
  tenant: TenantFixture,
  settings: Record<string, unknown> = {},
): Promise<WidgetBot> {
  const bot = await tenant.bot();
  const res = await t.app.inject({
    method: 'PUT',
    url: `/api/bots/${bot.id}/widget`,
    headers: tenant.owner.headers,
    payload: { enabled: true, allowed_origins: [SITE], ...settings },
  });
  if (res.statusCode !== 200) throw new Error(`widget settings: ${res.statusCode} ${res.body}`);
  return { botId: bot.id, publishableKey: (res.json() as { publishable_key: string }).publishable_key };
}

export interface Session {
  token: string;
  visitor_id: string;
  conversation_id: string | null;
  headers: Record<string, string>;
}

export async function startSession(
  t: TestApp,
  publishableKey: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = { origin: SITE },
): Promise<Session> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/widget/sessions',
    headers,
    payload: { publishable_key: publishableKey, ...body },
  });
  if (res.statusCode !== 201) throw new Error(`session: ${res.statusCode} ${res.body}`);
  const session = res.json() as Omit<Session, 'headers'>;
  recordSecret(session.token);
  return { ...session, headers: { origin: SITE, authorization: `Bearer ${session.token}` } };
}

export function send(
  t: TestApp,
  session: Pick<Session, 'headers'>,
  payload: unknown,
  headers: Record<string, string> = {},
) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/widget/messages',
    headers: { ...session.headers, ...headers },
    payload: payload as Record<string, unknown>,
  });
}
