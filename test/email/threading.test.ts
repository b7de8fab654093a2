import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  baseSubject,
  chooseThread,
  foldIds,
  messageIdOf,
  ownMessageId,
  replyHeaders,
  replySubject,
  threadCandidates,
  verifyOwnMessageId,
  type KnownMessage,
  type ThreadDecision,
} from '../../src/modules/email/threading.js';
import { messageIdsIn } from '../../src/modules/email/mail.js';
import { readEml } from './eml.js';

const DIR = join(import.meta.dirname, 'fixtures', 'threading');

interface Fixture {
  tenantId: string;
  domain: string;
  secret: string;
  conversations: Record<string, string>;
  known: KnownMessage[];
  cases: {
    file: string;
    expect: { kind: ThreadDecision['kind']; conversation?: string; linked?: string | null; reason?: string };
    sameMessageId?: { conversation: string; sameBody: boolean };
  }[];
}

const fixture = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as Fixture;
const conversation = (key: string | null | undefined) => (key ? fixture.conversations[key]! : null);

describe('threading fixtures', () => {
  const decide = (c: Fixture['cases'][number]) => {
    const mail = readEml(join(DIR, c.file));
    const candidates = threadCandidates(mail);
    // The store is asked for every candidate id; it may answer rows of any tenant.
    const known = fixture.known.filter((k) => candidates.includes(k.messageId));
    return chooseThread({
      tenantId: fixture.tenantId,
      domain: fixture.domain,
      secret: fixture.secret,
      sender: mail.from!,
      candidates,
      inReplyTo: messageIdsIn((mail.headers['in-reply-to'] ?? []).join(' ')),
      known,
      sameMessageId: c.sameMessageId
        ? { conversationId: conversation(c.sameMessageId.conversation)!, sameBody: c.sameMessageId.sameBody }
        : null,
    });
  };

  it('threads every fixture correctly (100 %)', () => {
    const wrong: string[] = [];
    for (const c of fixture.cases) {
      const decision = decide(c);
      const ok =
        decision.kind === c.expect.kind &&
        (decision.kind === 'new'
          ? decision.linkedConversationId === conversation(c.expect.linked) &&
            (c.expect.reason === undefined || decision.reason === c.expect.reason)
          : decision.conversationId === conversation(c.expect.conversation));
      if (!ok) wrong.push(`${c.file}: ${JSON.stringify(decision)}`);
    }
    console.log(
      `threading fixtures: ${fixture.cases.length - wrong.length} of ${fixture.cases.length} correct`,
    );
    expect(wrong).toEqual([]);
    expect(fixture.cases.length).toBeGreaterThanOrEqual(20);
  });

  it('gives two recipients of one newsletter two conversations', () => {
    const one = decide(fixture.cases.find((c) => c.file === 'newsletter-reply-recipient-one.eml')!);
    const two = decide(fixture.cases.find((c) => c.file === 'newsletter-reply-recipient-two.eml')!);
    expect(one.kind).toBe('new');
    expect(two.kind).toBe('new');
  });
});

describe('own Message-IDs', () => {
  const expected = { domain: 'mail.parley.example', tenantId: 't1', conversationId: 'c1', secret: 's' };

  it('verify for their tenant and conversation only', () => {
    const id = ownMessageId('Mail.Parley.Example', 't1', 'c1', 's');
    expect(id).toMatch(/^<[0-9a-f]{24}\.[0-9a-f]{32}@mail\.parley\.example>$/);
    expect(verifyOwnMessageId(id, expected)).toBe(true);
    expect(
      verifyOwnMessageId(id.toUpperCase().replace('MAIL.PARLEY.EXAMPLE', 'mail.parley.example'), expected),
    ).toBe(true);
    expect(verifyOwnMessageId(id, { ...expected, tenantId: 't2' })).toBe(false);
    expect(verifyOwnMessageId(id, { ...expected, conversationId: 'c2' })).toBe(false);
    expect(verifyOwnMessageId(id, { ...expected, secret: 'other' })).toBe(false);
    expect(verifyOwnMessageId(id, { ...expected, domain: 'evil.example' })).toBe(false);
  });

  it('still verify after a key rotation while the earlier key is listed, and not once it is gone', () => {
    const before = ownMessageId('mail.parley.example', 't1', 'c1', 's');
    const rotated = { ...expected, secret: 'new', previousSecrets: ['older', 's'] };
    expect(verifyOwnMessageId(before, rotated)).toBe(true);
    expect(verifyOwnMessageId(before, { ...rotated, previousSecrets: ['older'] })).toBe(false);
    expect(verifyOwnMessageId(before, { ...rotated, tenantId: 't2' })).toBe(false);
    expect(verifyOwnMessageId(ownMessageId('mail.parley.example', 't1', 'c1', 'new'), rotated)).toBe(true);
  });

  it('reject a changed tag or random part and malformed ids', () => {
    const id = ownMessageId('mail.parley.example', 't1', 'c1', 's').slice(1, -1);
    const [random, rest] = id.split('.');
    const flipped = `${random!.slice(0, -1)}${random!.endsWith('0') ? '1' : '0'}.${rest}`;
    expect(verifyOwnMessageId(flipped, expected)).toBe(false);
    expect(verifyOwnMessageId(`${random}.${'0'.repeat(32)}@mail.parley.example`, expected)).toBe(false);
    for (const bad of [
      '',
      'x@mail.parley.example',
      `${random}@mail.parley.example`,
      `${random}.abc@mail.parley.example`,
    ])
      expect(verifyOwnMessageId(bad, expected)).toBe(false);
  });

  it('are unique', () => {
    const ids = new Set(Array.from({ length: 200 }, () => ownMessageId('d.example', 't', 'c', 's')));
    expect(ids.size).toBe(200);
  });
});

describe('threadCandidates', () => {
  it('keeps the whole chain in order, then In-Reply-To, without duplicates', () => {
    const mail = {
      headers: {
        references: ['<a@x> <b@x>\r\n <c@x> <a@x>'],
        'in-reply-to': ['<c@x> (comment) <d@x>'],
      },
    };
    expect(threadCandidates(mail)).toEqual(['a@x', 'b@x', 'c@x', 'd@x']);
    expect(threadCandidates({ headers: {} })).toEqual([]);
    expect(messageIdOf({ headers: { 'message-id': [' <m@x> '] } })).toBe('m@x');
  });
});

describe('subjects', () => {
  const cases: [string, string][] = [
    ['Ihre Anfrage', 'Re: Ihre Anfrage'],
    ['Re: Ihre Anfrage', 'Re: Ihre Anfrage'],
    ['RE: AW: Re: Ihre Anfrage', 'Re: Ihre Anfrage'],
    ['AW: WG: Fwd: Ihre Anfrage', 'Re: Ihre Anfrage'],
    ['SV: Order', 'Re: Order'],
    ['Re[2]: Order', 'Re: Order'],
    ['RE : Votre demande', 'Re: Votre demande'],
    ['R: I: La sua richiesta', 'Re: La sua richiesta'],
    ['Fw: TR: Antw: x', 'Re: x'],
    ['Reise nach Rom', 'Re: Reise nach Rom'],
    ['Aware: the price', 'Re: Aware: the price'],
    ['', 'Re:'],
  ];
  it.each(cases)('%s → %s', (subject, reply) => {
    expect(replySubject(subject)).toBe(reply);
    expect(replySubject(replySubject(subject))).toBe(reply);
  });
  it('strips every prefix for comparison', () => {
    expect(baseSubject('  AW:  AW: Termin  ')).toBe('Termin');
  });
});

describe('replyHeaders', () => {
  const own = '<0123.abcd@mail.parley.example>';

  it('sets the thread headers and marks a bot reply as automatic', () => {
    const { headers, references } = replyHeaders(
      { messageId: '<m3@x>', references: ['m1@x', 'm2@x'], inReplyTo: ['m2@x'], subject: 'AW: Re: Termin' },
      own,
    );
    expect(headers).toEqual({
      'Message-ID': own,
      'In-Reply-To': '<m3@x>',
      References: '<m1@x> <m2@x> <m3@x>',
      Subject: 'Re: Termin',
      'Auto-Submitted': 'auto-replied',
      'X-Auto-Response-Suppress': 'All',
    });
    expect(references).toEqual(['m1@x', 'm2@x', 'm3@x']);
  });

  it('gives a person’s reply neither Auto-Submitted nor X-Auto-Response-Suppress', () => {
    const { headers } = replyHeaders({ messageId: 'm@x', subject: 'Frage' }, own, { automated: false });
    expect(headers['Auto-Submitted']).toBeUndefined();
    expect(headers['X-Auto-Response-Suppress']).toBeUndefined();
    expect(headers['References']).toBe('<m@x>');
  });

  it('uses In-Reply-To when there are no References, and folds long chains at 78 characters', () => {
    const ids = Array.from(
      { length: 30 },
      (_, i) => `CAH7x+${i}-aVeryLongMessageIdentifierPart@mail.gmail.com`,
    );
    const { headers, references } = replyHeaders({ messageId: 'last@x', references: ids, subject: 's' }, own);
    expect(references.length).toBe(20);
    expect(references[0]).toBe(ids[0]);
    expect(references.at(-1)).toBe('last@x');
    const lines = `References: ${headers['References']}`.split('\r\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(78);
    for (const line of lines.slice(1)) expect(line.startsWith(' ')).toBe(true);
    expect(replyHeaders({ messageId: 'b@x', inReplyTo: ['a@x'], subject: 's' }, own).references).toEqual([
      'a@x',
      'b@x',
    ]);
  });

  it('folds nothing for a short list', () => {
    expect(foldIds('References', ['a@x'])).toBe('<a@x>');
  });
});
