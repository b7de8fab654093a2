import { describe, expect, it } from 'vitest';
import { SOURCES, schemaProblem } from './provider-schemas/validate.js';

describe('the providers’ published request schemas the fakes check', () => {
  it('name their source, version and licence', () => {
    for (const source of SOURCES) {
      expect(source.license).toBe('MIT');
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(source.operation).toBeTruthy();
    }
  });

  it('accept Meta messages as Parley sends them and refuse malformed ones', () => {
    const base = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '4917612345678',
      biz_opaque_callback_data: 'o1',
    };
    expect(
      schemaProblem('metaMessage', { ...base, type: 'text', text: { body: 'Hallo', preview_url: false } }),
    ).toBeNull();
    expect(
      schemaProblem('metaMessage', {
        ...base,
        type: 'template',
        template: {
          name: 'termin_erinnerung',
          language: { policy: 'deterministic', code: 'de' },
          components: [],
        },
      }),
    ).toBeNull();
    // The published schema requires the language policy.
    expect(
      schemaProblem('metaMessage', {
        ...base,
        type: 'template',
        template: { name: 'termin_erinnerung', language: { code: 'de' } },
      }),
    ).not.toBeNull();
    expect(
      schemaProblem('metaMessage', { ...base, type: 'text', text: { body: 'x' }, extra: 1 }),
    ).not.toBeNull();
    expect(
      schemaProblem('metaMessage', { ...base, type: 'text', text: { body: 'x', bold: true } }),
    ).not.toBeNull();
    const { recipient_type: _r, ...noRecipientType } = base;
    expect(
      schemaProblem('metaMessage', { ...noRecipientType, type: 'text', text: { body: 'x' } }),
    ).not.toBeNull();
    expect(schemaProblem('metaMessage', { ...base, type: 'carrier_pigeon' })).not.toBeNull();
    expect(
      schemaProblem('metaMessage', {
        ...base,
        biz_opaque_callback_data: 'x'.repeat(513),
        type: 'text',
        text: { body: 'x' },
      }),
    ).not.toBeNull();
  });

  it('accept Twilio’s form parameters as text and refuse undocumented or mistyped ones', () => {
    const ok = {
      To: '+4917612345678',
      From: '+4930111111',
      Body: 'Hallo',
      StatusCallback: 'https://a.example/s?o=1',
    };
    expect(schemaProblem('twilioMessage', ok)).toBeNull();
    expect(
      schemaProblem('twilioMessage', {
        ...ok,
        ContentSid: 'HX' + '0'.repeat(32),
        ContentVariables: '{"1":"x"}',
      }),
    ).toBeNull();
    expect(schemaProblem('twilioMessage', { ...ok, Bodi: 'typo' })).toMatch(/undocumented parameter Bodi/);
    expect(schemaProblem('twilioMessage', { ...ok, StatusCallback: 'not a url' })).not.toBeNull();
    expect(schemaProblem('twilioMessage', { ...ok, ValidityPeriod: 'soon' })).not.toBeNull();
  });
});
