import { Command, InvalidArgumentError } from 'commander';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createContext, type AppContext } from './context.js';
import { DataDirLockedError } from './db/lock.js';
import { migrate } from './db/migrate.js';
import { describeDemo, isEmpty, seedDemo } from './demo.js';
import { insertUser } from './modules/auth/repository.js';
import { ROLES, type Role } from './modules/auth/permissions.js';
import { createTenant, findTenant } from './modules/tenants/service.js';

function parseDate(value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError(`not a date: ${value}`);
  return date;
}

function parseWholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return Number(value);
}

/** "30d", "12h", "90m" → milliseconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+)([dhm])$/.exec(value);
  if (!match) throw new InvalidArgumentError(`use a duration like 30d, 12h or 90m, not ${value}`);
  const unit = { d: 86400_000, h: 3600_000, m: 60_000 }[match[2] as 'd' | 'h' | 'm'];
  return Number(match[1]) * unit;
}

function parseRole(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`role must be one of ${ROLES.join(', ')}`);
  }
  return value as Role;
}

/** Opens the database for one command; the schema is brought up to date first unless told not to. */
async function withContext<T>(fn: (ctx: AppContext) => Promise<T>, options = { migrate: true }): Promise<T> {
  const ctx = await createContext(loadConfig());
  try {
    if (options.migrate) await migrate(ctx.db);
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}

function print(json: boolean, data: Record<string, unknown>, text: string): void {
  console.log(json ? JSON.stringify(data) : text);
}

async function serve(config: Config): Promise<void> {
  const ctx = await createContext(config);
  const applied = await migrate(ctx.db);
  const app = await buildApp(ctx);
  if (applied.length > 0) app.log.info({ migrations: applied }, 'migrations applied');
  if (config.seedDemo && (await isEmpty(ctx))) {
    const seed = await seedDemo(ctx);
    console.log(describeDemo(seed, `http://localhost:${config.port}`));
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
}

export function buildCli(): Command {
  const program = new Command('parley').description('Parley: multi-tenant platform for AI chatbots');

  program
    .command('serve', { isDefault: true })
    .description('start the HTTP service (applies migrations; seeds a demo tenant on an empty database)')
    .action(async () => serve(loadConfig()));

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const applied = await withContext((ctx) => migrate(ctx.db), { migrate: false });
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date');
    });

  const tenant = program.command('tenant').description('manage tenants');
  tenant
    .command('create')
    .requiredOption('--name <name>', 'tenant name')
    .option('--plan <plan>', 'plan id: sandbox, starter, business, enterprise, dashboard', 'starter')
    .option('--trial-ends <date>', 'trial end (ISO date); starts a trial subscription', parseDate)
    .option('--quota <n>', 'monthly message quota (overrides the plan)', parseWholeNumber)
    .option('--industry <code>', 'industry code for vocabulary in prompts')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { tenant: row, subscription } = await withContext((ctx) =>
        ctx.db.transaction((tx) =>
          createTenant(tx, {
            name: opts.name,
            plan: opts.plan,
            trialEndsAt: opts.trialEnds ?? null,
            quota: opts.quota ?? null,
            industryCode: opts.industry ?? null,
          }),
        ),
      );
      print(
        Boolean(opts.json),
        {
          id: row.id,
          name: row.name,
          plan: subscription.plan_id,
          subscription_status: subscription.status,
          trial_start: subscription.trial_start,
          trial_ends_at: subscription.trial_ends_at,
        },
        `tenant ${row.id} (${row.name}) on plan ${subscription.plan_id}`,
      );
    });

  const user = program.command('user').description('manage dashboard users');
  user
    .command('create')
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--email <email>', 'login e-mail')
    .requiredOption('--password <password>', 'password (at least 8 characters)')
    .option('--role <role>', `one of ${ROLES.join(', ')}`, parseRole, 'owner' as Role)
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <phone>')
    .option('--company <company>')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      if (String(opts.password).length < 8)
        throw new InvalidArgumentError('password needs at least 8 characters');
      const created = await withContext(async (ctx) => {
        if (!(await findTenant(ctx.db, opts.tenant).catch(() => undefined))) {
          throw new InvalidArgumentError(`no tenant ${opts.tenant}`);
        }
        return insertUser(ctx.db, opts.tenant, {
          email: opts.email,
          passwordHash: await ctx.sessions.hashPassword(opts.password),
          role: opts.role,
          firstName: opts.firstName,
          lastName: opts.lastName,
          phone: opts.phone,
          company: opts.company,
        });
      });
      print(
        Boolean(opts.json),
        { id: created.id, tenant_id: created.tenant_id, email: created.email, role: created.role },
        `user ${created.id} (${created.email}, ${created.role})`,
      );
    });

  const key = program.command('key').description('manage tenant API keys');
  key
    .command('create')
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--expires-in <duration>', 'e.g. 30d, 12h', parseDuration)
    .option('--name <name>', 'label')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { key: plain, record } = await withContext(async (ctx) => {
        if (!(await findTenant(ctx.db, opts.tenant).catch(() => undefined))) {
          throw new InvalidArgumentError(`no tenant ${opts.tenant}`);
        }
        return ctx.apiKeys.issue({
          tenantId: opts.tenant,
          name: opts.name ?? null,
          expiresAt: opts.expiresIn ? new Date(Date.now() + opts.expiresIn) : null,
        });
      });
      print(
        Boolean(opts.json),
        { id: record.id, key: plain, key_prefix: record.key_prefix, expires_at: record.expires_at },
        `API key (shown once): ${plain}`,
      );
    });

  program
    .command('demo')
    .description('create a demo tenant with a bot, knowledge base, owner login and API key')
    .action(async () => {
      const config = loadConfig();
      const seed = await withContext((ctx) => seedDemo(ctx));
      console.log(describeDemo(seed, `http://localhost:${config.port}`));
    });

  return program;
}

const isEntryPoint = process.argv[1] && /main\.(ts|js)$/.test(process.argv[1]);
if (isEntryPoint || process.env.PARLEY_CLI === '1') {
  buildCli()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
      else if (error instanceof DataDirLockedError || error instanceof InvalidArgumentError)
        console.error(error.message);
      else console.error(error);
      process.exit(1);
    });
}
