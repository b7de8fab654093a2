import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SKIP_REASONS,
  bodyFingerprint,
  isAutomated,
  loopGuard,
  skipReasonText,
  type SkipReason,
} from '../../src/modules/email/robots.js';
import { headersFromBlock, type MailInput } from '../../src/modules/email/mail.js';
import { readEml } from './eml.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const OWN = { addresses: ['support@shop-beispiel.de'], messageIdDomains: ['mail.parley.example'] };

const emls = (dir: string) =>
  readdirSync(join(FIXTURES, dir))
    .filter((f) => f.endsWith('.eml'))
    .sort();

function mail(headerBlock: string, extra: Partial<MailInput> = {}): MailInput {
  const headers = headersFromBlock(headerBlock);
  return {
    headers,
    from: /<([^>]+)>/.exec(headers['from']?.[0] ?? '')?.[1]?.toLowerCase() ?? null,
    to: [],
    subject: headers['subject']?.[0] ?? '',
    contentType: headers['content-type']?.[0] ?? 'text/plain',
    text: 'Hallo',
    ...extra,
  };
}

describe('automated mail corpus', () => {
  const files = emls('automated');

  it('holds at least 50 mails', () => {
    expect(files.length).toBeGreaterThanOrEqual(50);
  });

  it('answers none of them (0 bot replies)', () => {
    const answered = files.filter(
      (f) => !isAutomated(readEml(join(FIXTURES, 'automated', f)), OWN).automated,
    );
    const reasons = new Map<string, number>();
    for (const f of files) {
      const verdict = isAutomated(readEml(join(FIXTURES, 'automated', f)), OWN);
      if (verdict.automated) reasons.set(verdict.reason, (reasons.get(verdict.reason) ?? 0) + 1);
    }
    console.log(
      `automated corpus: ${files.length} mails, ${files.length - answered.length} recognised, ${answered.length} would be answered; reasons ${JSON.stringify(Object.fromEntries(reasons))}`,
    );
    expect(answered).toEqual([]);
  });
});

describe('customer corpus', () => {
  it('classifies no customer reply as automated', () => {
    const files = emls('customer');
    expect(files.length).toBeGreaterThanOrEqual(20);
    const flagged = files
      .map((f) => [f, isAutomated(readEml(join(FIXTURES, 'customer', f)), OWN)] as const)
      .filter(([, v]) => v.automated)
      .map(([f, v]) => `${f}: ${v.reason}`);
    expect(flagged).toEqual([]);
  });
});

describe('isAutomated rules', () => {
  const cases: [string, string, SkipReason | null][] = [
    ['Auto-Submitted: no', 'From: A <a@x.de>', null],
    ['auto-submitted other than no', 'From: A <a@x.de>\nAuto-Submitted: auto-notified', 'auto_submitted'],
    ['x-autoreply', 'From: A <a@x.de>\nX-Autoreply: yes', 'autoreply_header'],
    ['x-autorespond', 'From: A <a@x.de>\nX-Autorespond: hi', 'autoreply_header'],
    ['precedence bulk', 'From: A <a@x.de>\nPrecedence: bulk', 'precedence'],
    ['precedence first-class is a person', 'From: A <a@x.de>\nPrecedence: first-class', null],
    ['list-id', 'From: A <a@x.de>\nList-Id: <l.x.de>', 'mailing_list'],
    ['list-unsubscribe', 'From: A <a@x.de>\nList-Unsubscribe: <mailto:u@x.de>', 'mailing_list'],
    ['empty return path', 'Return-Path: <>\nFrom: A <a@x.de>', 'empty_return_path'],
    ['mailer-daemon', 'From: Mail Delivery System <MAILER-DAEMON@x.de>', 'mailer_daemon'],
    ['postmaster', 'From: <postmaster@x.de>', 'mailer_daemon'],
    ['noreply', 'From: X <noreply@x.de>', 'noreply_sender'],
    ['no-reply with tag', 'From: X <no-reply+abc@x.de>', 'noreply_sender'],
    ['do_not_reply', 'From: X <do_not_reply@x.de>', 'noreply_sender'],
    ['a name containing reply is a person', 'From: X <replyteam.anna@x.de>', null],
    ['own address', 'From: S <Support@Shop-Beispiel.de>', 'own_address'],
    ['no sender', 'Subject: Hallo', 'no_sender'],
    [
      'own message id domain',
      'From: A <a@x.de>\nMessage-ID: <abc.def@mail.parley.example>',
      'own_message_id',
    ],
    ['inbox rules loop', 'From: A <a@x.de>\nX-MS-Exchange-Inbox-Rules-Loop: a@x.de', 'inbox_rules_loop'],
    [
      'vacation subject alone is a person',
      'From: A <a@x.de>\nSubject: Urlaub im Juli – noch Zimmer frei?',
      null,
    ],
    ['suppress header alone is a person', 'From: A <a@x.de>\nX-Auto-Response-Suppress: All', null],
    [
      'suppress header and vacation subject',
      'From: A <a@x.de>\nX-Auto-Response-Suppress: All\nSubject: Automatic reply: Hello',
      'auto_reply_signals',
    ],
  ];
  it.each(cases)('%s', (_name, block, reason) => {
    const verdict = isAutomated(mail(block), OWN);
    expect(verdict.reason).toBe(reason);
    expect(verdict.automated).toBe(reason !== null);
  });

  it('multipart/report is a delivery report', () => {
    const verdict = isAutomated(
      mail('From: A <a@x.de>', { contentType: 'multipart/report; report-type=delivery-status; boundary=x' }),
      OWN,
    );
    expect(verdict.reason).toBe('delivery_report');
  });

  it('every reason has a German and an English text', () => {
    for (const reason of Object.keys(SKIP_REASONS) as SkipReason[]) {
      expect(skipReasonText(reason, 'de')).toMatch(/\S/);
      expect(skipReasonText(reason, 'en')).toMatch(/\S/);
    }
    expect(skipReasonText('noreply_sender', 'en-GB')).toBe(SKIP_REASONS.noreply_sender.en);
  });
});

describe('loopGuard', () => {
  const cases: [string, Parameters<typeof loopGuard>[0], string | null][] = [
    ['first reply', { repliesLastHour: 0, repliesLastDay: 0, sameBodyAnsweredRecently: false }, null],
    ['below both caps', { repliesLastHour: 4, repliesLastDay: 19, sameBodyAnsweredRecently: false }, null],
    ['hourly cap', { repliesLastHour: 5, repliesLastDay: 5, sameBodyAnsweredRecently: false }, 'hourly_cap'],
    ['daily cap', { repliesLastHour: 0, repliesLastDay: 20, sameBodyAnsweredRecently: false }, 'daily_cap'],
    [
      'same body',
      { repliesLastHour: 0, repliesLastDay: 0, sameBodyAnsweredRecently: true },
      'duplicate_body',
    ],
  ];
  it.each(cases)('%s', (_name, counts, reason) => {
    const decision = loopGuard(counts);
    expect(decision.reason).toBe(reason);
    expect(decision.answer).toBe(reason === null);
  });

  it('takes caps from the caller', () => {
    expect(
      loopGuard(
        { repliesLastHour: 1, repliesLastDay: 1, sameBodyAnsweredRecently: false },
        { perHour: 1, perDay: 9 },
      ).reason,
    ).toBe('hourly_cap');
  });

  it('fingerprints a body regardless of line breaks and case', () => {
    expect(bodyFingerprint('Hallo,\r\nich  komme\nmorgen.')).toBe(
      bodyFingerprint('hallo, ich komme morgen.'),
    );
    expect(bodyFingerprint('Hallo')).not.toBe(bodyFingerprint('Hallo!'));
  });
});

describe('header maps', () => {
  it('are built alike from pairs, raw lines, a block and a Map', async () => {
    const { headersFromLines, headersFromMap, headersFromPairs, mailFromParsed } =
      await import('../../src/modules/email/mail.js');
    const expected = { 'auto-submitted': ['auto-replied'], received: ['a b', 'c'] };
    expect(
      headersFromPairs([
        { name: 'Auto-Submitted', value: ' auto-replied ' },
        { name: 'Received', value: 'a\r\n b' },
        { name: 'received', value: 'c' },
      ]),
    ).toEqual(expected);
    expect(
      headersFromLines([
        { key: 'auto-submitted', line: 'Auto-Submitted: auto-replied' },
        { key: 'received', line: 'Received: a\r\n b' },
        { key: 'received', line: 'Received: c' },
      ]),
    ).toEqual(expected);
    expect(headersFromBlock('Auto-Submitted: auto-replied\r\nReceived: a\r\n b\r\nReceived: c')).toEqual(
      expected,
    );
    expect(
      headersFromMap(
        new Map<string, string | string[]>([
          ['Auto-Submitted', 'auto-replied'],
          ['Received', ['a\n b', 'c']],
        ]),
      ),
    ).toEqual(expected);
    const mail = mailFromParsed({
      headerLines: [
        { key: 'from', line: 'From: "Anna" <Anna@X.de>' },
        { key: 'to', line: 'To: s@shop.de' },
        { key: 'cc', line: 'Cc: b@x.de, c@x.de' },
        { key: 'content-type', line: 'Content-Type: multipart/report; report-type=delivery-status' },
      ],
      subject: 'Hallo',
      text: 'Text',
      html: false,
    });
    expect(mail).toMatchObject({ from: 'anna@x.de', to: ['s@shop.de', 'b@x.de', 'c@x.de'], html: null });
    expect(isAutomated(mail).reason).toBe('delivery_report');
  });
});
