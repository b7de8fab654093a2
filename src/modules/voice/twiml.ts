/**
 * Every TwiML document the voice channel answers with, built only with the official library's
 * `VoiceResponse` (the library escapes text and names verbs and attributes as Twilio defines
 * them). Pure.
 */
import twilio from 'twilio';
import { VOICE_LANGUAGES, type VoiceLanguage } from './speech/numbers.js';

const { VoiceResponse } = twilio.twiml;

/** Twilio's language code for the speech of each of our languages. */
type SayLanguage = NonNullable<
  Parameters<InstanceType<typeof VoiceResponse>['say']>[0] extends infer A
    ? A extends { language?: infer L }
      ? L
      : never
    : never
>;
type GatherLanguage = NonNullable<
  NonNullable<Parameters<InstanceType<typeof VoiceResponse>['gather']>[0]>['language']
>;

export const TWILIO_LANGUAGE: Record<VoiceLanguage, SayLanguage & GatherLanguage> = {
  de: 'de-DE',
  en: 'en-US',
  fr: 'fr-FR',
  it: 'it-IT',
};

/** The incoming call in ConversationRelay mode: the relay socket, and the hand-over action after it. */
export function relayTwiml(input: {
  relayUrl: string;
  handoffUrl: string;
  language: VoiceLanguage;
  greeting: string;
}): string {
  const response = new VoiceResponse();
  const connect = response.connect({ action: input.handoffUrl, method: 'POST' });
  const relay = connect.conversationRelay({
    url: input.relayUrl,
    language: TWILIO_LANGUAGE[input.language],
    welcomeGreeting: input.greeting,
    welcomeGreetingInterruptible: 'any',
    interruptible: 'any',
    dtmfDetection: true,
  });
  for (const lang of VOICE_LANGUAGES) relay.language({ code: TWILIO_LANGUAGE[lang] });
  return response.toString();
}

/**
 * One step of the Gather loop: what is said (if anything), then listening for speech or keys;
 * without input Twilio goes on to the redirect, which counts the silence.
 */
export function gatherTwiml(input: {
  say: string | null;
  language: VoiceLanguage;
  actionUrl: string;
  silenceUrl: string;
  hints?: string;
}): string {
  const response = new VoiceResponse();
  const language = TWILIO_LANGUAGE[input.language];
  const gather = response.gather({
    input: ['speech', 'dtmf'],
    language: language,
    speechTimeout: 'auto',
    numDigits: 1,
    action: input.actionUrl,
    method: 'POST',
    ...(input.hints ? { hints: input.hints } : {}),
  });
  if (input.say) gather.say({ language: language }, input.say);
  response.redirect({ method: 'POST' }, input.silenceUrl);
  return response.toString();
}

/** The model is still thinking: a filler sentence, then Twilio asks again at the poll URL. */
export function fillerTwiml(input: { say: string; language: VoiceLanguage; pollUrl: string }): string {
  const response = new VoiceResponse();
  response.say({ language: TWILIO_LANGUAGE[input.language] }, input.say);
  response.pause({ length: 1 });
  response.redirect({ method: 'POST' }, input.pollUrl);
  return response.toString();
}

/** A hand-over within opening hours: an optional sentence, then the number is dialled. */
export function dialTwiml(input: {
  say: string | null;
  language: VoiceLanguage;
  number: string;
  callerId?: string;
  timeLimitSeconds?: number;
}): string {
  const response = new VoiceResponse();
  if (input.say) response.say({ language: TWILIO_LANGUAGE[input.language] }, input.say);
  response.dial(
    {
      ...(input.callerId ? { callerId: input.callerId } : {}),
      ...(input.timeLimitSeconds ? { timeLimit: input.timeLimitSeconds } : {}),
    },
    input.number,
  );
  return response.toString();
}

/** A sentence, then the call ends (refusals, goodbye, closed hand-over). */
export function sayAndHangUpTwiml(input: { say: string; language: VoiceLanguage }): string {
  const response = new VoiceResponse();
  response.say({ language: TWILIO_LANGUAGE[input.language] }, input.say);
  response.hangup();
  return response.toString();
}

/** The call ends without a word (the relay ended normally, or the caller is gone). */
export function hangUpTwiml(): string {
  const response = new VoiceResponse();
  response.hangup();
  return response.toString();
}
