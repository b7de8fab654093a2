import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOOKING_CHANNELS,
  CHANNEL_KINDS,
  CHANNELS,
  channelOf,
  kindsWhere,
  liveEntries,
  splitForChannel,
  type ChannelKind,
} from '../../src/modules/channels/registry.js';
import { CHAT_CHANNELS, normalizeChannel } from '../../src/modules/chat/request.js';
import { BOT_CHANNELS } from '../../src/modules/bots/repository.js';
import { CONTACT_CHANNELS } from '../../src/modules/contacts/repository.js';
import { CONVERSATION_CHANNELS } from '../../src/modules/conversations/schema.js';
import { bookingChannelOf } from '../../src/modules/events/bookings/tags.js';
import { goLiveChecklist, type GoLiveFacts } from '../../src/modules/golive/rules.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';
import { send, startSession, widgetBot } from '../widget/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('channel registry: one descriptor per kind, every former list reads it', () => {
  it('has a descriptor for every kind, named by its own kind', () => {
    expect(Object.keys(CHANNELS).sort()).toEqual([...CHANNEL_KINDS].sort());
    for (const kind of CHANNEL_KINDS) expect(CHANNELS[kind].kind).toBe(kind);
  });

  it.each<[string, readonly string[], readonly string[]]>([
    // The specification's chat request: email, api, webhook.
    ['chat request', CHAT_CHANNELS, ['api', 'webhook', 'email']],
    ['bot channels', BOT_CHANNELS, ['api', 'webhook', 'email', 'whatsapp', 'voice']],
    ['contact channels', CONTACT_CHANNELS, ['api', 'webhook', 'email', 'whatsapp', 'voice', 'manual']],
    ['conversation channels', CONVERSATION_CHANNELS, CHANNEL_KINDS],
    ['connectable today', kindsWhere('connectable'), ['api', 'webhook', 'widget', 'email']],
  ])('%s', (_name, list, expected) => {
    expect([...list]).toEqual([...expected]);
  });

  it.each<[unknown, ChannelKind]>([
    ['email', 'email'],
    ['api', 'api'],
    ['webhook', 'webhook'],
    [undefined, 'api'],
    [null, 'api'],
    ['widget', 'api'],
    ['whatsapp', 'api'],
    ['test', 'api'],
    ['EMAIL', 'api'],
    [42, 'api'],
  ])('the chat request keeps %j as %s (any other value is replaced by api)', (value, expected) => {
    expect(normalizeChannel(value)).toBe(expected);
  });

  it.each<[ChannelKind, string]>([
    ['api', 'api'],
    ['webhook', 'api'],
    ['widget', 'api'],
    ['email', 'email'],
    ['test', 'manual'],
    ['whatsapp', 'whatsapp'],
    ['sms', 'api'],
    ['voice', 'voice'],
  ])('a booking on %s records booking_channel %s', (kind, expected) => {
    expect(bookingChannelOf(kind)).toBe(expected);
    expect(BOOKING_CHANNELS).toContain(expected);
  });

  it('reads an unknown stored channel as the API', () => {
    expect(channelOf('fax').kind).toBe('api');
    expect(channelOf('__proto__').kind).toBe('api');
  });

  it.each<[Partial<GoLiveFacts>, string[]]>([
    [{}, []],
    [{ widgetLive: true }, ['widget']],
    [{ shareLink: true }, ['share_link']],
    [{ mailboxes: 2 }, ['email']],
    [{ widgetLive: true, shareLink: true, mailboxes: 1 }, ['widget', 'share_link', 'email']],
  ])('go-live channels for %j: %j', (facts, expected) => {
    const checklist = goLiveChecklist({
      prompt: 'x',
      knowledgeEntries: 1,
      preflightGreen: true,
      widgetLive: false,
      shareLink: false,
      mailboxes: 0,
      testExchange: true,
      isActive: false,
      ...facts,
    });
    expect(checklist.items.find((i) => i.key === 'channel')!.channels).toEqual(expected);
    expect(liveEntries({ widgetLive: false, shareLink: false, mailboxes: 0, ...facts })).toEqual(expected);
  });

  it.each<[ChannelKind, string, string[]]>([
    ['api', 'x'.repeat(5000), ['x'.repeat(5000)]],
    ['whatsapp', 'kurz', ['kurz']],
    ['whatsapp', '', ['']],
    ['whatsapp', 'a'.repeat(1600), ['a'.repeat(1600)]],
    ['whatsapp', 'a'.repeat(1601), ['a'.repeat(1600), 'a']],
    [
      'sms',
      `${'Satz eins. '.repeat(100)}${'b'.repeat(700)}`,
      ['Satz eins. '.repeat(100).trim(), 'b'.repeat(700)],
    ],
  ])('splits a reply for %s at the channel length', (kind, text, expected) => {
    const parts = splitForChannel(kind, text);
    expect(parts).toEqual(expected);
    const max = CHANNELS[kind].maxMessageChars;
    if (max !== null) for (const part of parts) expect([...part].length).toBeLessThanOrEqual(max);
  });

  it('splits after a sentence in the second half, never inside a word when a space is there', () => {
    const text = `${'Wort '.repeat(250)}Ende. ${'mehr '.repeat(200)}`;
    const parts = splitForChannel('whatsapp', text.trim());
    expect(parts.length).toBe(2);
    expect(parts[0]!.endsWith('Ende.')).toBe(true);
    expect(parts.join(' ')).toBe(text.trim());
  });
});

describe('channel registry: the dashboard and the migrations agree with it', () => {
  it("the dashboard's channel list is the registry's, in its order", () => {
    const source = readFileSync(resolve(ROOT, 'web/src/channels.ts'), 'utf8');
    const list = /CHANNEL_KINDS = \[([^\]]*)\]/.exec(source)![1]!;
    expect([...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1])).toEqual([...CHANNEL_KINDS]);
  });

  it.each(['de', 'en'] as const)('the dashboard labels every kind as the registry does (%s)', (language) => {
    const texts = JSON.parse(readFileSync(resolve(ROOT, `web/src/i18n/${language}.json`), 'utf8')) as {
      channels: Record<string, unknown>;
    };
    for (const kind of CHANNEL_KINDS)
      expect([kind, texts.channels[kind]]).toEqual([kind, CHANNELS[kind].label[language]]);
  });

  it("the newest migration's check constraint lists every kind", () => {
    const dir = resolve(ROOT, 'src/db/migrations');
    const last = readdirSync(dir)
      .filter(
        (f) =>
          f.endsWith('.sql') && readFileSync(resolve(dir, f), 'utf8').includes('conversations_channel_check'),
      )
      .sort()
      .at(-1)!;
    const sql = readFileSync(resolve(dir, last), 'utf8');
    const list = /ADD CONSTRAINT conversations_channel_check\s+CHECK \(channel IN \(([^)]*)\)\)/.exec(
      sql,
    )![1]!;
    expect([...list.matchAll(/'([a-z_]+)'/g)].map((m) => m[1])).toEqual([...CHANNEL_KINDS]);
  });
});

describeApp('channel registry: database, OpenAPI and the ?channel= filter', (get) => {
  it('the database accepts a conversation on every kind and refuses any other', async () => {
    const { ctx } = get();
    const tenant = await buildTenant(ctx);
    const bot = await tenant.bot();
    for (const kind of CHANNEL_KINDS) {
      await ctx.db.query(
        `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id) VALUES ($1, $2, $3, 'x')`,
        [tenant.id, bot.id, kind],
      );
    }
    await expect(
      ctx.db.query(
        `INSERT INTO conversations (tenant_id, bot_id, channel, sender_id) VALUES ($1, $2, 'fax', 'x')`,
        [tenant.id, bot.id],
      ),
    ).rejects.toThrow();
  });

  it("the OpenAPI document's channel enums are the registry's lists", async () => {
    const { app } = get();
    const doc = (await app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: {
              name: string;
              in: string;
              schema: { enum?: string[]; anyOf?: { const: string }[] };
            }[];
          }
        >
      >;
    };
    const param = doc.paths['/api/conversations']!.get!.parameters!.find((p) => p.name === 'channel')!;
    const values = param.schema.enum ?? param.schema.anyOf!.map((a) => a.const);
    expect(values).toEqual([...CHANNEL_KINDS]);
  });

  it('lists widget conversations with ?channel=widget (was 400), other tenants see none', async () => {
    const t = get();
    const tenant = await buildTenant(t.ctx);
    const other = await buildTenant(t.ctx);
    const { publishableKey } = await widgetBot(t, tenant);
    const session = await startSession(t, publishableKey);
    expect((await send(t, session, { text: 'Hallo' })).statusCode).toBe(200);
    await t.app.inject({
      method: 'POST',
      url: `/v1/bots/${(await tenant.bot()).id}/chat`,
      headers: tenant.keyHeaders,
      payload: { message: 'per API' },
    });
    for (const kind of CHANNEL_KINDS) {
      const res = await t.app.inject({
        url: `/api/conversations?channel=${kind}`,
        headers: tenant.owner.headers,
      });
      expect([kind, res.statusCode]).toEqual([kind, 200]);
    }
    const widget = await t.app.inject({
      url: '/api/conversations?channel=widget',
      headers: tenant.owner.headers,
    });
    const rows = (widget.json() as { data: { channel: string }[] }).data;
    expect(rows.length).toBe(1);
    expect(rows[0]!.channel).toBe('widget');
    const foreign = await t.app.inject({
      url: '/api/conversations?channel=widget',
      headers: other.owner.headers,
    });
    expect((foreign.json() as { data: unknown[] }).data).toEqual([]);
    const bad = await t.app.inject({ url: '/api/conversations?channel=fax', headers: tenant.owner.headers });
    expect(bad.statusCode).toBe(400);
    const anonymous = await t.app.inject({ url: '/api/conversations?channel=widget' });
    expect(anonymous.statusCode).toBe(401);
  });
});
