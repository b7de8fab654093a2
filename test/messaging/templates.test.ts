import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  fillPlaceholders,
  filledTemplate,
  metaShape,
  placeholderCount,
  placeholdersOf,
  twilioShape,
} from '../../src/modules/messaging/template-shape.js';
import {
  metaTemplateOf,
  metaTemplatePart,
  parseTemplateUpdates,
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
    expect(fillPlaceholders('Hallo {{1}}, am {{2}}.', { 1: 'Anna', 2: 'Montag' })).toBe(
      'Hallo Anna, am Montag.',
    );
    expect(fillPlaceholders('Hallo {{1}} {{3}}', { 1: 'Anna' })).toBe('Hallo Anna {{3}}');
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
    });
    expect(metaTemplateOf({ name: 'ohne_sprache' })).toBeNull();
  });

  it('builds the template message Meta’s published schema accepts', () => {
    const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '4917612345678' };
    const plain = metaShape([{ type: 'BODY', text: 'Hallo {{1}}, am {{2}}' }]);
    for (const [shape, parameters] of [
      [metaShape([{ type: 'BODY', text: 'Ohne' }]), []],
      [plain, ['Anna', 'Montag']],
    ] as const) {
      const part = metaTemplatePart({ name: 'termin', language: 'de' }, shape, [...parameters]);
      expect(schemaProblem('metaMessage', { ...base, ...part })).toBeNull();
    }
    expect(metaTemplatePart({ name: 'termin', language: 'de' }, plain, ['Anna', 'Montag'])).toEqual({
      type: 'template',
      template: {
        name: 'termin',
        language: { policy: 'deterministic', code: 'de' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Anna' },
              { type: 'text', text: 'Montag' },
            ],
          },
        ],
      },
    });
  });

  it('orders placeholders: numbered 1…n, named as they first appear', () => {
    expect(placeholdersOf('{{2}} und {{1}}, {{2}}')).toEqual(['1', '2']);
    expect(placeholdersOf('Hallo {{ first_name }}, {{kurs}} am {{datum}}; {{kurs}}')).toEqual([
      'first_name',
      'kurs',
      'datum',
    ]);
    expect(placeholdersOf('Nichts')).toEqual([]);
  });

  it('reads what a send fills: a text header, named body parameters, a URL button’s end, with Meta’s examples', () => {
    const components = [
      { type: 'HEADER', format: 'TEXT', text: 'Kurs {{1}}', example: { header_text: ['Yoga'] } },
      {
        type: 'BODY',
        text: 'Hallo {{name}}, wir sehen uns am {{datum}}.',
        example: {
          body_text_named_params: [
            { param_name: 'name', example: 'Anna' },
            { param_name: 'datum', example: '3. Dezember' },
          ],
        },
      },
      { type: 'FOOTER', text: 'Studio Mitte' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Passt' },
          {
            type: 'URL',
            text: 'Termin ansehen',
            url: 'https://studio.example/t/{{1}}',
            example: ['https://studio.example/t/abc'],
          },
          { type: 'URL', text: 'Website', url: 'https://studio.example' },
          { type: 'PHONE_NUMBER', text: 'Anrufen', phone_number: '+4930111' },
        ],
      },
    ];
    const shape = metaShape(components);
    expect(shape.unsupported).toBeNull();
    expect(shape.slots.map((s) => [s.part, s.kind, s.key, s.button, s.example])).toEqual([
      ['header', 'text', '1', null, 'Yoga'],
      ['body', 'text', 'name', null, 'Anna'],
      ['body', 'text', 'datum', null, '3. Dezember'],
      ['button', 'url', '1', 1, 'https://studio.example/t/abc'],
    ]);
    expect(shape.slots[3]).toMatchObject({
      buttonText: 'Termin ansehen',
      url: 'https://studio.example/t/{{1}}',
    });
    const parameters = ['Pilates', 'Frau Weber', 'Freitag', 'k42'];
    expect(filledTemplate(shape, parameters)).toBe(
      'Kurs Pilates\n\nHallo Frau Weber, wir sehen uns am Freitag.\n\nStudio Mitte',
    );
    const part = metaTemplatePart({ name: 'kurs', language: 'de' }, shape, parameters);
    expect((part.template as { components: unknown[] }).components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: 'Pilates' }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Frau Weber', parameter_name: 'name' },
          { type: 'text', text: 'Freitag', parameter_name: 'datum' },
        ],
      },
      { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'k42' }] },
    ]);
    const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '4917612345678' };
    expect(schemaProblem('metaMessage', { ...base, ...part })).toBeNull();
    // The first button (index "0"), as Meta's reference numbers them.
    const first = metaShape([components[1]!, { type: 'BUTTONS', buttons: [components[3]!.buttons![1]!] }]);
    const atZero = metaTemplatePart({ name: 'kurs', language: 'de' }, first, ['a', 'b', 'k42']);
    expect((atZero.template as { components: { index?: string }[] }).components[1]!.index).toBe('0');
    expect(schemaProblem('metaMessage', { ...base, ...atZero })).toBeNull();
    expect(metaTemplateOf({ name: 'kurs', language: 'de', components })).toMatchObject({
      body: 'Hallo {{name}}, wir sehen uns am {{datum}}.',
      components,
    });
  });

  it('sends a media header by its link and shows it in the stored text', () => {
    const shape = metaShape([
      { type: 'HEADER', format: 'DOCUMENT' },
      { type: 'BODY', text: 'Ihre Rechnung {{1}}' },
    ]);
    expect(shape.slots.map((s) => [s.part, s.kind, s.key])).toEqual([
      ['header', 'document', null],
      ['body', 'text', '1'],
    ]);
    const parameters = ['https://studio.example/r/7.pdf', 'R-7'];
    expect(filledTemplate(shape, parameters)).toBe(
      '[Dokument] https://studio.example/r/7.pdf\n\nIhre Rechnung R-7',
    );
    const part = metaTemplatePart({ name: 'rechnung', language: 'de' }, shape, parameters);
    expect((part.template as { components: unknown[] }).components[0]).toEqual({
      type: 'header',
      parameters: [{ type: 'document', document: { link: 'https://studio.example/r/7.pdf' } }],
    });
    const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '4917612345678' };
    expect(schemaProblem('metaMessage', { ...base, ...part })).toBeNull();
  });

  it('names in words the parts the inbox cannot fill', () => {
    const body = { type: 'BODY', text: 'Hallo' };
    const cases: [unknown[], RegExp][] = [
      [[body, { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'X1' }] }], /Code kopieren/],
      [[body, { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'COPY_CODE' }] }], /Einmal-Code/],
      [[body, { type: 'BUTTONS', buttons: [{ type: 'FLOW', text: 'Los' }] }], /Flow-Knopf/],
      [[{ type: 'HEADER', format: 'LOCATION' }, body], /Standort/],
      [[body, { type: 'CAROUSEL', cards: [] }], /Karussell/],
      [[body, { type: 'LIMITED_TIME_OFFER' }], /befristetes Angebot/],
      [[body, { type: 'BUTTONS', buttons: [{ type: 'NEU' }] }], /Knopf vom Typ NEU/],
    ];
    for (const [components, words] of cases) {
      const { unsupported } = metaShape(components);
      expect(unsupported).toMatch(/^Diese Vorlage enthält .*; der Posteingang kann sie nicht ausfüllen\.$/);
      expect(unsupported).toMatch(words);
    }
  });

  it('reads where a Twilio content’s variables stand: in a text, a button’s link, the media’s link', () => {
    const types = {
      'twilio/call-to-action': {
        body: 'Hallo {{1}}, Ihre Rechnung {{3}}',
        actions: [{ type: 'URL', title: 'Ansehen', url: 'https://studio.example/{{2}}' }],
      },
      'twilio/media': { body: 'Hallo {{1}}', media: ['https://cdn.studio.example/{{4}}.pdf'] },
    };
    const shape = twilioShape('Hallo {{1}}, Ihre Rechnung {{3}}', [
      { types, variables: { 1: 'Anna', 2: 'k42' } },
    ]);
    expect(shape.slots.map((s) => [s.part, s.kind, s.key, s.example, s.buttonText, s.url])).toEqual([
      ['body', 'text', '1', 'Anna', null, null],
      ['button', 'url', '2', 'k42', 'Ansehen', 'https://studio.example/{{2}}'],
      ['body', 'text', '3', null, null, null],
      ['header', 'url', '4', null, null, 'https://cdn.studio.example/{{4}}.pdf'],
    ]);
    // A content stored before its samples were kept: the types alone.
    expect(twilioShape('Hallo {{1}}', [types]).slots).toHaveLength(4);
  });

  it('reads template status, component and category changes of the webhooks, nothing else', () => {
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
            {
              field: 'message_template_components_update',
              value: {
                message_template_id: 78,
                message_template_name: 'u',
                message_template_language: 'de',
                message_template_element: 'Neu: {{1}}',
              },
            },
            {
              field: 'template_category_update',
              value: { message_template_id: 79, previous_category: 'UTILITY', new_category: 'MARKETING' },
            },
          ],
        },
      ],
    });
    expect(updates).toEqual([
      { accountId: '2233', providerId: '77', name: 't', language: 'de', status: 'PAUSED' },
      { accountId: '2233', providerId: '78', name: 'u', language: 'de', status: null },
      { accountId: '2233', providerId: '79', name: '', language: null, status: null },
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
