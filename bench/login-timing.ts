/**
 * How long a failed sign-in takes, by kind of account.
 *
 *   npm run bench:login [-- --tries=50]
 *
 * The service runs in-process on a scratch PGlite directory (bench/harness.ts) with BCRYPT_COST=10. One tenant
 * has three accounts whose password hashes have cost 10, 12 and 8 (as after an operator changed
 * BCRYPT_COST, or the CLI ran with another setting). Each try posts a wrong password to
 * POST /api/auth/login for each account and one unknown e-mail, in turn and in a shuffled order,
 * each from its own client address (so no throttling applies). Printed per kind: mean and
 * median in milliseconds, and their ratio to the unknown-e-mail case. Then each account signs
 * in with its right password once, the cost of its stored hash afterwards is printed, and the
 * failed sign-ins are measured again (now no hash is dearer than the configured cost).
 */
import bcrypt from 'bcrypt';
import type { AppContext } from '../src/shared/context.js';
import { buildApp } from '../src/app.js';
import { insertUser } from '../src/modules/auth/repository.js';
import { bcryptCost } from '../src/modules/auth/login-timing.js';
import { argument, benchContext, benchTenant, withPgliteDir } from './harness.js';

const TRIES = Number(argument('tries') ?? 50);
const WARM_UP = 5;
const SERVICE_COST = 10;
const PASSWORD = 'the-right-password-1';

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

async function main() {
  await withPgliteDir('parley-bench-login', async (dataDir) => {
    const ctx = await benchContext({
      DATABASE_URL: '',
      PARLEY_DATA_DIR: dataDir,
      WEBHOOK_WORKER: 'false',
      REDIS_URL: '',
      BCRYPT_COST: String(SERVICE_COST),
      LOGIN_MAX_FAILURES: '1000',
    });
    try {
      await run(ctx);
    } finally {
      await ctx.close();
    }
  });
}

async function run(ctx: AppContext) {
  const app = await buildApp(ctx);
  await app.ready();
  const { tenant } = await benchTenant(ctx);
  const kinds: { name: string; email: string }[] = [];
  for (const cost of [10, 12, 8]) {
    const email = `cost-${cost}@bench.test`;
    await insertUser(ctx.db, tenant.id, {
      email,
      passwordHash: await bcrypt.hash(PASSWORD, cost),
      role: 'editor',
    });
    kinds.push({ name: `account, hash cost ${cost}`, email });
  }
  kinds.push({ name: 'unknown e-mail', email: 'nobody@bench.test' });

  let address = 0;
  const attempt = async (email: string, password: string) => {
    address += 1;
    const started = performance.now();
    const res = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress: `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`,
    });
    return { status: res.statusCode, ms: performance.now() - started };
  };

  const measure = async (title: string, tries: number, warmUp: number) => {
    const times = new Map<string, number[]>(kinds.map((k) => [k.name, []]));
    for (let round = 0; round < warmUp + tries; round++) {
      for (const kind of shuffled(kinds)) {
        const { status, ms } = await attempt(kind.email, 'a-wrong-password');
        if (status !== 401) throw new Error(`${kind.name}: expected 401, got ${status}`);
        if (round >= warmUp) times.get(kind.name)!.push(ms);
      }
    }
    const unknown = times.get('unknown e-mail')!;
    const base = { mean: mean(unknown), median: median(unknown) };
    console.log(`${title}, service at BCRYPT_COST=${SERVICE_COST}, ${tries} tries per kind (ms):\n`);
    console.log('| kind | mean | median | mean / unknown | median / unknown |');
    console.log('|---|---|---|---|---|');
    for (const kind of kinds) {
      const values = times.get(kind.name)!;
      const m = mean(values);
      const md = median(values);
      console.log(
        `| ${kind.name} | ${m.toFixed(1)} | ${md.toFixed(1)} | ${(m / base.mean).toFixed(2)} | ${(md / base.median).toFixed(2)} |`,
      );
    }
  };

  await measure('Failed sign-ins', TRIES, WARM_UP);

  console.log('\nAfter one successful sign-in each, the stored hash costs:');
  for (const kind of kinds.slice(0, 3)) {
    const { status } = await attempt(kind.email, PASSWORD);
    const rows = await ctx.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE email = $1',
      [kind.email],
    );
    console.log(`  ${kind.email}: sign-in ${status}, hash cost now ${bcryptCost(rows[0]!.password_hash)}`);
  }
  console.log('');
  await measure('Failed sign-ins once every hash has the configured cost', TRIES, WARM_UP);
  await app.close();
}

await main();
