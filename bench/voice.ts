/**
 * Voice benchmark (PostgreSQL): 200 concurrent ConversationRelay calls on one instance, each
 * asking one question of a fake model that streams its reply; measured per call is the time
 * from the model's first token to the first `text` message the caller's side receives (p50,
 * p99), then how long an `interrupt` takes to stop a streaming reply (the last `text` after
 * it), then the Gather loop's turn webhook with the offline model (p50, p99).
 *
 *   npm run bench:voice [-- --calls=200 --turns=200]
 */
import { randomUUID } from 'node:crypto';
import { buildApp } from '../src/app.js';
import { registerVoiceConnections, type VoiceConnection } from '../src/modules/voice/connection.js';
import type { ModelStreamEvent } from '../src/modules/models/provider.js';
import { postSigned, RelaySimulator, voiceConnection } from '../test/voice/helpers.js';
import {
  argument,
  benchContext,
  benchTenant,
  DEFAULT_POSTGRES_URL,
  percentile,
  portOf,
  setting,
  withScratchPostgres,
} from './harness.js';

const CALLS = Number(argument('calls') ?? 200);
const TURNS = Number(argument('turns') ?? 200);

const REPLY = 'Gerne, der Kurs findet jeden Montag statt und dauert neunzig Minuten, '.repeat(8);
const REPLY_WORDS = REPLY.split(/(?<= )/).length;

/** Streams a reply word by word; remembers when each request's first token left it. */
class TimedModel {
  readonly name = 'timed';
  firstToken = new Map<string, number>();
  constructor(private readonly delayMs: number) {}
  generate() {
    return Promise.resolve({ text: 'ok', model: 'timed', promptTokens: 1, completionTokens: 1 });
  }
  async *stream(request: {
    messages: { content: string }[];
    signal?: AbortSignal;
  }): AsyncGenerator<ModelStreamEvent> {
    // The call's id is in the question; the prompt around it is the pipeline's business.
    const key = /CA[0-9a-f]{32}/.exec(request.messages.at(-1)!.content)?.[0] ?? '';
    const words = REPLY.split(/(?<= )/);
    for (const [i, word] of words.entries()) {
      if (request.signal?.aborted) return;
      if (i === 0) this.firstToken.set(key, performance.now());
      yield { type: 'delta', text: word };
      await new Promise((r) => setTimeout(r, this.delayMs));
    }
    const text = words.join('');
    yield { type: 'done', reply: { text, model: 'timed', promptTokens: 10, completionTokens: 50 } };
  }
}

async function run(databaseUrl: string): Promise<void> {
  const ctx = await benchContext({
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: 'https://voice.example.test',
  });
  const app = await buildApp(ctx, { logStream: { write: () => undefined } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = portOf(app);
  const { tenant, bot } = await benchTenant(ctx);
  const table = new Map<string, VoiceConnection>();
  registerVoiceConnections(ctx, async (id) => table.get(id) ?? null);
  const connection = voiceConnection(tenant.id, bot.id, { callsPerCallerPerHour: 1_000_000 });
  table.set(connection.id, connection);
  const offline = ctx.model;
  const model = new TimedModel(5);
  ctx.model = model as never;

  // 1. First text token after the model's first token, CALLS calls at once.
  const firstText: number[] = [];
  await Promise.all(
    Array.from({ length: CALLS }, async (_v, i) => {
      const sid = `CA${randomUUID().replace(/-/g, '')}`;
      const from = `+4917000${String(i).padStart(5, '0')}`;
      await postSigned(app, connection, 'incoming', { CallSid: sid, From: from });
      const connected = await RelaySimulator.connect(port, connection);
      if (!(connected instanceof RelaySimulator)) throw new Error(`relay refused: ${connected.rejected}`);
      const sim = connected;
      sim.setup(sid, from);
      const question = `Wann ist der Kurs? (${sid})`;
      sim.send({ type: 'prompt', voicePrompt: question, lang: 'de-DE', last: true });
      await sim.waitFor((m) => m.type === 'text', 60_000);
      const received = performance.now();
      const first = model.firstToken.get(sid);
      if (first === undefined) throw new Error(`the model never streamed call ${sid}`);
      firstText.push(received - first);
      await sim.waitFor((m) => m.type === 'text' && m.last === true, 60_000);
      sim.close();
    }),
  );

  // 2. Interrupt stop time: the last text after the interrupt, 20 calls one after another.
  const stops: number[] = [];
  for (let i = 0; i < 20; i++) {
    const sid = `CA${randomUUID().replace(/-/g, '')}`;
    await postSigned(app, connection, 'incoming', { CallSid: sid, From: '+491709999999' });
    const sim = (await RelaySimulator.connect(port, connection)) as RelaySimulator;
    sim.setup(sid, '+491709999999');
    sim.send({ type: 'prompt', voicePrompt: `Erzählen Sie mehr ${i}`, lang: 'de-DE', last: true });
    await sim.waitFor(() => sim.received.filter((m) => m.type === 'text').length >= 3);
    const sent = performance.now();
    let last = sent;
    sim.socket.on('message', () => (last = performance.now()));
    sim.send({
      type: 'interrupt',
      utteranceUntilInterrupt: 'Gerne, der Kurs',
      durationUntilInterruptMs: 900,
    });
    await new Promise((r) => setTimeout(r, 300));
    // A stop measured on a reply that had already ended would prove nothing.
    const texts = sim.received.filter((m) => m.type === 'text' && m.last !== true).length;
    if (texts >= REPLY_WORDS)
      throw new Error(`the reply was not streaming when interrupted (${texts} texts)`);
    stops.push(last - sent);
    sim.close();
  }

  // 3. Gather turn webhook with the offline model.
  ctx.model = offline;
  const gather = voiceConnection(tenant.id, bot.id, { mode: 'gather', callsPerCallerPerHour: 1_000_000 });
  table.set(gather.id, gather);
  const turns: number[] = [];
  const sids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const sid = `CA${randomUUID().replace(/-/g, '')}`;
    await postSigned(app, gather, 'incoming', { CallSid: sid, From: `+4917100${i}` });
    sids.push(sid);
  }
  let n = 1;
  for (let done = 0; done < TURNS; n++) {
    await Promise.all(
      sids.map(async (sid) => {
        const start = performance.now();
        await postSigned(app, gather, `turn?n=${n}`, { CallSid: sid, SpeechResult: 'Was kostet der Kurs?' });
        turns.push(performance.now() - start);
      }),
    );
    done += sids.length;
  }

  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(`ConversationRelay, ${CALLS} concurrent calls (PostgreSQL):`);
  console.log(
    `  first text after the model's first token: p50 ${ms(percentile(firstText, 50))}, p99 ${ms(percentile(firstText, 99))}`,
  );
  console.log(`  interrupt → last text: p50 ${ms(percentile(stops, 50))}, max ${ms(Math.max(...stops))}`);
  console.log(
    `Gather turn webhook, offline model, 20 calls at once: p50 ${ms(percentile(turns, 50))}, p99 ${ms(percentile(turns, 99))} (${turns.length} turns)`,
  );
  await app.close();
  await ctx.close();
}

await withScratchPostgres(setting('BENCH_DATABASE_URL', DEFAULT_POSTGRES_URL), 'bench_voice', run);
