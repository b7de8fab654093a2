import { describe, expect, it } from 'vitest';
import {
  dialTwiml,
  fillerTwiml,
  gatherTwiml,
  hangUpTwiml,
  relayTwiml,
  sayAndHangUpTwiml,
} from '../../src/modules/voice/twiml.js';
import { checkTwiml, elementsOf, TWIML_ALLOWLIST } from './twiml-check.js';

describe('TwiML of the voice channel', () => {
  it('reads an allowlist of verbs and attributes from the library', () => {
    expect(TWIML_ALLOWLIST.get('ConversationRelay')).toContain('welcomeGreeting');
    expect(TWIML_ALLOWLIST.get('Gather')).toContain('speechTimeout');
    expect(TWIML_ALLOWLIST.get('Language')).toContain('code');
    expect(TWIML_ALLOWLIST.has('Hangup')).toBe(true);
    expect(() => checkTwiml('<Response><Speak>x</Speak></Response>')).toThrow(/unknown verb/);
    expect(() => checkTwiml('<Response><Say loud="yes">x</Say></Response>')).toThrow(/unknown attribute/);
    expect(() => checkTwiml('<Response><Say>x</Response>')).toThrow();
  });

  it('connects the call to ConversationRelay with the four languages and the hand-over action', () => {
    const root = checkTwiml(
      relayTwiml({
        relayUrl: 'wss://bot.example.com/v1/channels/c1/voice/relay',
        handoffUrl: 'https://bot.example.com/v1/channels/c1/voice/handoff',
        language: 'de',
        greeting: 'Guten Tag <& "willkommen">',
      }),
    );
    const connect = root.children[0]!;
    expect(connect).toMatchObject({
      name: 'Connect',
      attributes: { action: 'https://bot.example.com/v1/channels/c1/voice/handoff' },
    });
    const relay = connect.children[0]!;
    expect(relay.attributes).toMatchObject({
      url: 'wss://bot.example.com/v1/channels/c1/voice/relay',
      language: 'de-DE',
      welcomeGreeting: 'Guten Tag <& "willkommen">',
      interruptible: 'any',
    });
    expect(relay.children.map((l) => l.attributes.code)).toEqual(['de-DE', 'en-US', 'fr-FR', 'it-IT']);
  });

  it('gathers speech and keys with the turn number, then redirects on silence', () => {
    const root = checkTwiml(
      gatherTwiml({
        say: 'Wie kann ich helfen?',
        language: 'fr',
        actionUrl: 'https://x.test/v1/channels/c1/voice/turn?n=3',
        silenceUrl: 'https://x.test/v1/channels/c1/voice/turn?n=3&silence=1',
      }),
    );
    expect(root.children.map((c) => c.name)).toEqual(['Gather', 'Redirect']);
    expect(root.children[0]!.attributes).toMatchObject({
      input: 'speech dtmf',
      language: 'fr-FR',
      speechTimeout: 'auto',
      action: 'https://x.test/v1/channels/c1/voice/turn?n=3',
    });
    expect(root.children[0]!.children[0]).toMatchObject({ name: 'Say', text: 'Wie kann ich helfen?' });
    expect(root.children[1]!.text).toBe('https://x.test/v1/channels/c1/voice/turn?n=3&silence=1');
  });

  it('builds filler, dial and hang-up documents', () => {
    const filler = checkTwiml(
      fillerTwiml({ say: 'Einen Moment …', language: 'de', pollUrl: 'https://x/poll?n=1' }),
    );
    expect(filler.children.map((c) => c.name)).toEqual(['Say', 'Pause', 'Redirect']);
    const dial = checkTwiml(dialTwiml({ say: 'Ich verbinde.', language: 'de', number: '+493012345' }));
    expect(elementsOf(dial).map((e) => e.name)).toEqual(['Response', 'Say', 'Dial']);
    expect(dial.children[1]!.text).toBe('+493012345');
    const bye = checkTwiml(sayAndHangUpTwiml({ say: 'Auf Wiederhören!', language: 'it' }));
    expect(bye.children.map((c) => c.name)).toEqual(['Say', 'Hangup']);
    expect(checkTwiml(hangUpTwiml()).children.map((c) => c.name)).toEqual(['Hangup']);
  });

  it('stays under 64 kB even with the longest reply the chat allows', () => {
    const xml = gatherTwiml({
      say: '&<'.repeat(5_000),
      language: 'de',
      actionUrl: 'https://x/turn?n=1',
      silenceUrl: 'https://x/turn?n=1&silence=1',
    });
    expect(() => checkTwiml(xml)).not.toThrow();
  });
});
