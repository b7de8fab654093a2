/**
 * CPU per chat of the service's in-process stages, without network or database: prompt
 * assembly, the protection step, the offline model (language detection, answer extraction)
 * and its token counts, for distinct messages over the chat benchmark's knowledge. It measures
 * the levers that `npm run bench:chat` cannot tell apart from the load on the machine.
 *
 *   npm run bench:stages [-- --chats=4000]
 */
import { assembleSystemPrompt, protectForModel } from '../src/modules/prompt/assemble.js';
import { offlineAnswer } from '../src/modules/models/offline.js';
import { detectLanguage } from '../src/shared/language.js';
import { countPromptTokens, countTokens } from '../src/modules/models/tokens.js';
import type { KnowledgeHit } from '../src/modules/knowledge/search.js';

const option = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const CHATS = Number(option('chats', '4000'));

const KNOWLEDGE = [
  ['Öffnungszeiten', 'Wir haben Montag bis Freitag von 9 bis 18 Uhr geöffnet, samstags von 9 bis 14 Uhr.'],
  ['Preise', 'Ein Haarschnitt kostet 35 Euro, Färben ab 60 Euro, Bartpflege 15 Euro.'],
  ['Parken', 'Parking is available in the courtyard behind the salon, free for customers.'],
  ['Termine', 'Termine buchen Sie online über unsere Website oder telefonisch.'],
] as const;

function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES =
  'ka lo mi ster ber gen haar schnitt farb ton wel le bart pfle ge sa lon ter min preis'.split(' ');
const TEMPLATES = [
  (w: string[]) => `Wann habt ihr am ${w[0]} geöffnet, auch für ${w[1]}?`,
  (w: string[]) => `Was kostet ein ${w[0]} mit ${w[1]} und ${w[2]}?`,
  (w: string[]) => `Where can I park near the ${w[0]} when I bring my ${w[1]}?`,
  (w: string[]) => `Kann ich einen Termin für ${w[0]} ${w[1]} online buchen?`,
];
const random = lcg(7);
const word = () => {
  let w = '';
  for (let i = 0; i < 2 + Math.floor(random() * 3); i++)
    w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
  return w;
};
const message = () => TEMPLATES[Math.floor(random() * TEMPLATES.length)]!([word(), word(), word()]);

const bot = {
  system_prompt: 'Du bist der Assistent eines Salons.',
  knowledge_strictness: 3,
  emoji_usage: 'none',
  formal_address: true,
  industry_code: null,
} as unknown as Parameters<typeof assembleSystemPrompt>[0];

function hitsFor(text: string): KnowledgeHit[] {
  // Two hits with scores that vary from message to message, as the search's scores do.
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) >>> 0;
  const first = hash % KNOWLEDGE.length;
  return [first, (first + 1) % KNOWLEDGE.length].map((i, rank) => ({
    entryId: `e${i}`,
    chunkId: `c${i}`,
    title: KNOWLEDGE[i]![0],
    content: KNOWLEDGE[i]![1],
    score: 0.9 - rank * 0.2 - (hash % 1000) / 10000,
    sourceUrl: null,
    botId: 'b',
  }));
}

const stages = { prompt: 0, promptTokens: 0, answer: 0, replyTokens: 0, language: 0 };
let clock = 0;

/** CPU milliseconds since the last call. */
function lap(): number {
  const usage = process.cpuUsage();
  const now = (usage.user + usage.system) / 1000;
  const spent = now - clock;
  clock = now;
  return spent;
}

/** The steps of the offline model's generate(), each timed (see offlineProvider). */
function one(text: string): void {
  const hits = hitsFor(text);
  lap();
  const system = assembleSystemPrompt(bot, { industry_code: null }, hits, { securityLayer: true });
  const forModel = protectForModel({ systemPrompt: system.text, history: [], userMessage: text, bot });
  stages.prompt += lap();
  countPromptTokens(forModel.system, forModel.messages);
  stages.promptTokens += lap();
  const reply = offlineAnswer({
    userMessage: text,
    knowledge: hits.map((h) => ({ title: h.title, content: h.content, score: h.score })),
    formalAddress: true,
  });
  stages.answer += lap();
  countTokens(reply);
  stages.replyTokens += lap();
  detectLanguage(text);
  stages.language += lap();
}

for (let i = 0; i < 500; i++) one(message());
for (const key of Object.keys(stages)) stages[key as keyof typeof stages] = 0;
for (let i = 0; i < CHATS; i++) one(message());

console.log(`Chat stages, CPU ms per chat over ${CHATS} distinct messages:`);
const per = (ms: number) => Number((ms / CHATS).toFixed(4));
console.table({
  'prompt assembly and protection': per(stages.prompt),
  'prompt token count': per(stages.promptTokens),
  'offline answer': per(stages.answer),
  'reply token count': per(stages.replyTokens),
  'language detection of the message, again': per(stages.language),
  'all but the last': per(stages.prompt + stages.promptTokens + stages.answer + stages.replyTokens),
});
