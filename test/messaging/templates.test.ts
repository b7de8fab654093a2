import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  fillBody,
  metaTemplateOf,
  metaTemplatePart,
  parseTemplateUpdates,
  placeholderCount,
  readMetaTemplates,
} from '../../src/modules/messaging/templates.js';
import { contentRequestOf, twilioTemplatePart } from '../../src/modules/messaging/twilio-content.js';
import { providerError } from '../../src/modules/messaging/rules.js';
import type { ReplyBlock } from '../../src/modules/messaging/render.js';
import { schemaProblem } from './provider-schemas/validate.js';

const BLOCK = '0b6f3c1e-6a52-4b57-9a1f-6f8f1f0a8c11';

describe('templates', () => {
  it('counts placeholders and fills them in order', () => {
    expect(placeholderCount('Hallo {{1}}, am {{2}} um {{ 3 }}; {{1}}')).toBe(3);
    expect(placeholderCount('Keine Parameter')).toBe(0);
    expect(fillBody('Hallo {{1}}, am {{2}}.', ['Anna', 'Montag'])).toBe('Hallo Anna, am Montag.');
    expect(fillBody('Hallo {{1}} {{3}}', ['Anna'])).toBe('Hallo Anna {{3}}');
  });

  it('reads a template of Meta’s list: the body, its parameters, the status', () => {
    expect(
      metaTemplateOf({
        id: '123',
        name: 'termin',
        language: 'de',
        status: 'approved',
        category: 'UTILITY',
        components: [
          { type: 'HEADER', text: 'x' },
          { type: 'BODY', text: 'Hallo {{1}}' },
        ],
      }),
    ).toMatchObject({
      name: 'termin',
      providerId: '123',
      status: 'APPROVED',
      body: 'Hallo {{1}}',
      parameterCount: 1,
    });
    expect(metaTemplateOf({ name: 'ohne_sprache' })).toBeNull();
  });

  it('builds the template message Meta’s published schema accepts', () => {
    const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '4917612345678' };
    for (const parameters of [[], ['Anna', 'Montag']]) {
      const part = metaTemplatePart({ name: 'termin', language: 'de' }, parameters);
      expect(schemaProblem('metaMessage', { ...base, ...part })).toBeNull();
    }
    expect(metaTemplatePart({ name: 'termin', language: 'de' }, ['Anna'])).toEqual({
      type: 'template',
      template: {
        name: 'termin',
        language: { policy: 'deterministic', code: 'de' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: 'Anna' }] }],
      },
    });
  });

  it('reads template status changes of the webhook, nothing else', () => {
    const updates = parseTemplateUpdates({
      entry: [
        {
          id: '2233',
          changes: [
            { field: 'messages', value: {} },
            {
              field: 'message_template_status_update',
              value: {
                event: 'PAUSED',
                message_template_id: 77,
                message_template_name: 't',
                message_template_language: 'de',
              },
            },
            { field: 'message_template_status_update', value: { message_template_name: 'no_event' } },
          ],
        },
      ],
    });
    expect(updates).toEqual([
      { accountId: '2233', providerId: '77', name: 't', language: 'de', status: 'PAUSED' },
    ]);
  });

  it('does not follow a paging link to another host (the token goes only to the configured one)', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          data: [{ name: 'a', language: 'de', status: 'APPROVED', components: [] }],
          paging: { next: 'http://elsewhere.example/v23.0/1/message_templates?after=1' },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v23.0`;
    try {
      const read = await readMetaTemplates(base, { businessAccountId: '1', token: 't' }, 2000);
      expect(read).toMatchObject({ ok: false, text: 'paging link outside the configured host' });
      expect(seen).toHaveLength(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('words the template error codes', () => {
    expect(providerError('132000').text).toMatch(/^Die Anzahl der Parameter passt nicht zur Vorlage/);
    expect(providerError('132001').handling).toBe('refuse');
    expect(providerError('132015').text).toMatch(/pausiert/);
    expect(providerError('132016').text).toMatch(/deaktiviert/);
  });
});

describe('Twilio Content', () => {
  const buttons: ReplyBlock = {
    id: BLOCK,
    type: 'buttons',
    name: 'Termin',
    items: [
      { id: 'a', title: 'Montag', description: null },
      { id: 'b', title: 'Dienstag', description: null },
    ],
  };

  it('makes buttons a quick-reply and a list a list-picker the published schema accepts', () => {
    const quick = contentRequestOf('Wann passt es?', buttons, 'de')!;
    expect(schemaProblem('twilioContent', quick)).toBeNull();
    expect(quick.types).toEqual({
      'twilio/quick-reply': {
        body: 'Wann passt es?',
        actions: [
          { title: 'Montag', id: `c:${BLOCK}:a` },
          { title: 'Dienstag', id: `c:${BLOCK}:b` },
        ],
      },
    });
    const list = contentRequestOf(
      '',
      {
        ...buttons,
        type: 'list',
        items: [...buttons.items, { id: 'c', title: 'Mittwoch', description: 'abends' }],
      },
      'de',
    )!;
    expect(schemaProblem('twilioContent', list)).toBeNull();
    expect(list.types).toMatchObject({ 'twilio/list-picker': { body: 'Termin', button: 'Auswählen' } });
  });

  it('gives up when the block does not fit (the numbered list is sent instead)', () => {
    const many = {
      ...buttons,
      items: ['a', 'b', 'c', 'd'].map((id) => ({ id, title: id, description: null })),
    };
    expect(contentRequestOf('x', many, 'de')).toBeNull();
    expect(
      contentRequestOf(
        'x',
        { ...buttons, items: [{ id: 'a', title: 'x'.repeat(21), description: null }] },
        'de',
      ),
    ).toBeNull();
  });

  it('sends a content with its variables as Twilio documents them', () => {
    const part = twilioTemplatePart('HX' + '1'.repeat(32), ['Anna', 'Montag']);
    expect(part).toEqual({
      content_sid: 'HX' + '1'.repeat(32),
      content_variables: '{"1":"Anna","2":"Montag"}',
    });
    expect(
      schemaProblem('twilioMessage', {
        To: 'whatsapp:+4917612345678',
        From: 'whatsapp:+4930111111',
        ContentSid: part.content_sid as string,
        ContentVariables: part.content_variables as string,
      }),
    ).toBeNull();
  });
});
