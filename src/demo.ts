import type { AppContext } from './shared/context.js';
import { createBot } from './modules/bots/index.js';
import { createTenant } from './modules/tenants/index.js';
import { insertUser } from './modules/auth/index.js';
import { importEntries, type EntryInput } from './modules/knowledge/index.js';

export const DEMO_PROMPT =
  'Du bist der freundliche Assistent der Parley Demo GmbH. Beantworte Fragen zu Öffnungszeiten, Preisen und Kursen.';

/** The demo bot's knowledge base: what a small course studio would answer from. */
export const DEMO_KNOWLEDGE: EntryInput[] = [
  {
    title: 'Öffnungszeiten',
    content:
      'Wir haben Montag bis Freitag von 9 bis 20 Uhr und am Samstag von 10 bis 16 Uhr geöffnet. ' +
      'Sonntags und an Feiertagen bleibt das Studio geschlossen. Telefonisch erreichen Sie uns zu den Öffnungszeiten.',
    tags: ['öffnungszeiten'],
    language: 'de',
  },
  {
    title: 'Preise',
    content:
      'Eine Einzelstunde kostet 18 Euro, die Zehnerkarte 160 Euro. Die Monatsmitgliedschaft kostet 59 Euro ' +
      'und ist monatlich kündbar. Schüler und Studierende erhalten 20 Prozent Ermäßigung. Das Probetraining ist kostenlos.',
    tags: ['preise'],
    language: 'de',
  },
  {
    title: 'Kurse',
    content:
      'Unsere Kurse: Yoga am Montag und Mittwoch um 18 Uhr, Pilates am Dienstag um 19 Uhr, Rückenfit am Donnerstag ' +
      'um 17 Uhr und Meditation am Samstag um 11 Uhr. Alle Kurse dauern 60 Minuten und haben höchstens 12 Plätze.',
    tags: ['kurse'],
    language: 'de',
  },
  {
    title: 'Anmeldung und Probetraining',
    content:
      'Für ein kostenloses Probetraining melden Sie sich per E-Mail an info@parley-demo.example oder direkt am Empfang an. ' +
      'Bitte bringen Sie bequeme Kleidung und ein Handtuch mit. Matten stellen wir zur Verfügung.',
    tags: ['anmeldung'],
    language: 'de',
  },
];

export interface DemoSeed {
  tenantId: string;
  botId: string;
  apiKey: string;
  email: string;
  password: string;
}

/** True when the database holds no tenant yet (a fresh data directory). */
export async function isEmpty(ctx: AppContext): Promise<boolean> {
  const rows = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tenants');
  return (rows[0]?.n ?? 0) === 0;
}

/**
 * A demo tenant: an owner login, a bot with a small knowledge base and an API key.
 * The plain key and password are returned once, for printing.
 */
export async function seedDemo(ctx: AppContext): Promise<DemoSeed> {
  const email = 'demo@parley.local';
  const password = `demo-${Math.random().toString(36).slice(2, 10)}`;
  const passwordHash = await ctx.sessions.hashPassword(password);
  const { tenantId, userId } = await ctx.db.transaction(async (tx) => {
    const { tenant } = await createTenant(tx, { name: 'Parley Demo GmbH', plan: 'business' });
    const user = await insertUser(tx, tenant.id, { email, passwordHash, role: 'owner', firstName: 'Demo' });
    return { tenantId: tenant.id, userId: user.id };
  });
  const bot = await createBot(ctx.db, tenantId, { name: 'Demo-Bot', system_prompt: DEMO_PROMPT }, userId);
  await importEntries(
    {
      db: ctx.db,
      embeddings: ctx.embeddings,
      maxEntryBytes: ctx.config.knowledge.maxEntryBytes,
      minScore: ctx.config.knowledge.minScore,
    },
    tenantId,
    { botId: bot.id },
    DEMO_KNOWLEDGE,
    userId,
  );
  const { key } = await ctx.apiKeys.issue({ tenantId, name: 'Demo key', createdBy: userId });
  return { tenantId, botId: bot.id, apiKey: key, email, password };
}

export function describeDemo(seed: DemoSeed, baseUrl: string): string {
  return [
    '',
    'Demo tenant created. These secrets are shown once and not stored in plain text:',
    `  API key:        ${seed.apiKey}`,
    `  Dashboard user: ${seed.email} / ${seed.password}`,
    '',
    'Try the chat endpoint:',
    `  curl -s ${baseUrl}/api/bot-chat/${seed.botId}/chat \\`,
    `    -H 'Authorization: Bearer ${seed.apiKey}' -H 'Content-Type: application/json' \\`,
    `    -d '{"message": "Wann habt ihr geöffnet?"}'`,
    '',
  ].join('\n');
}
