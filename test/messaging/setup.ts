import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { expect } from 'vitest';
import type { Queryable } from '../../src/db/database.js';
import type { TenantFixture } from '../helpers/factories.js';

export const APP_SECRET = 'meta-app-secret-not-shown';
export const VERIFY_TOKEN = 'verify-token-not-shown';
export const ACCESS_TOKEN = 'EAAG-access-token-not-shown';
export const AUTH_TOKEN = 'twilio-auth-token-not-shown';
export const ACCOUNT_SID = 'AC' + '0123456789abcdef'.repeat(2);

export const WHATSAPP_CONNECTION = {
  kind: 'whatsapp_cloud',
  name: 'WhatsApp Hotline',
  phone_number_id: '1098765432',
  business_account_id: '2233445566',
  access_token: ACCESS_TOKEN,
  app_secret: APP_SECRET,
  verify_token: VERIFY_TOKEN,
  public_base_url: 'https://parley.example.test',
};

export const SMS_CONNECTION = {
  kind: 'twilio_sms',
  name: 'SMS',
  account_sid: ACCOUNT_SID,
  auth_token: AUTH_TOKEN,
  from_number: '+4930111111',
  public_base_url: 'https://parley.example.test:8443/base',
};

export const TWILIO_WHATSAPP_CONNECTION = { ...SMS_CONNECTION, kind: 'twilio_whatsapp', name: 'Twilio WA' };

/** Adds a connection through the API as the tenant's owner (201 expected); the connection. */
export async function addConnection(
  app: FastifyInstance,
  tenant: TenantFixture,
  botId: string,
  payload: object,
): Promise<{ id: string; webhook_url: string; status_callback_url: string | null }> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/bots/${botId}/connections`,
    headers: tenant.owner.headers,
    payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Posts Twilio's form to a connection URL, signed as Twilio signs it (or with `signature`). */
export function postTwilioForm(
  app: FastifyInstance,
  url: string,
  params: Record<string, string>,
  signature?: string,
) {
  return app.inject({
    method: 'POST',
    url: url.slice(url.indexOf('/v1/channels/')),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature ?? twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params),
    },
    payload: new URLSearchParams(params).toString(),
  });
}

/** The conversation of a connection's customer, taken over from the bot by the tenant's owner. */
export async function takeOverConversation(
  app: FastifyInstance,
  db: Queryable,
  tenant: TenantFixture,
  connectionId: string,
): Promise<string> {
  const [row] = await db.query<{ conversation_id: string }>(
    'SELECT conversation_id FROM channel_inbound WHERE connection_id = $1 AND conversation_id IS NOT NULL',
    [connectionId],
  );
  expect(row, 'a conversation of the connection').toBeDefined();
  const taken = await app.inject({
    method: 'POST',
    url: `/api/inbox/${row!.conversation_id}/take-over`,
    headers: tenant.owner.headers,
  });
  expect(taken.statusCode, taken.body).toBe(200);
  return row!.conversation_id;
}
