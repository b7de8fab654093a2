/**
 * The `parley` command line. Every error is one line in words (no stack trace) with a
 * documented exit code: 0 done, 1 failed, 2 wrong usage. With `--json`, results and errors
 * are JSON on standard output.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { createContext } from '../context.js';
import type { AppContext } from '../shared/context.js';
import { DataDirLockedError } from '../db/lock.js';
import { migrate } from '../db/migrate.js';
import { describeDemo, seedDemo } from '../demo.js';
import { AppError } from '../http/errors.js';
import type { TimeCursor } from '../shared/pagination.js';
import { findUserByEmail, insertUser, ROLES, type Role, listTeamUsers } from '../modules/auth/index.js';
import { listBots } from '../modules/bots/index.js';
import { createTenant } from '../modules/tenants/index.js';
import { CliError, EXIT, usageError } from './errors.js';
import {
  checkPlan,
  parseDate,
  parseDuration,
  parseEmail,
  parsePassword,
  parseRole,
  parseWholeNumber,
  resolveTenant,
} from './validate.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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

function print(json: boolean, data: unknown, text: string): void {
  console.log(json ? JSON.stringify(data) : text);
}

/** Rows as aligned text columns. */
function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : v instanceof Date ? v.toISOString() : String(v);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

/** Rows per repository page while a list command collects every row. */
const LIST_PAGE_SIZE = 100;

/**
 * Every row of a repository list that pages newest first by (created_at, id), returned oldest
 * first. A page shorter than asked for is the last one.
 */
async function everyRow<T extends { id: string; cursor_at: string }>(
  fetchPage: (page: { limit: number; after?: TimeCursor }) => Promise<T[]>,
): Promise<Omit<T, 'cursor_at'>[]> {
  const rows: T[] = [];
  let after: TimeCursor | undefined;
  for (;;) {
    const page = await fetchPage({ limit: LIST_PAGE_SIZE, after });
    rows.push(...page);
    const last = page.at(-1);
    if (!last || page.length < LIST_PAGE_SIZE) break;
    after = { at: last.cursor_at, id: last.id };
  }
  return rows.reverse().map(({ cursor_at: _cursor, ...row }) => row);
}

function tenantCommands(program: Command): void {
  const tenant = program.command('tenant').description('manage tenants');
  tenant
    .command('create')
    .description('create a tenant with its subscription')
    .requiredOption('--name <name>', 'tenant name')
    .option('--plan <plan>', 'plan id: sandbox, starter, business, enterprise, dashboard', 'starter')
    .option('--trial-ends <date>', 'trial end (ISO date); starts a trial subscription', parseDate)
    .option('--quota <n>', 'monthly message quota (overrides the plan)', parseWholeNumber)
    .option('--industry <code>', 'industry code for vocabulary in prompts')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { tenant: row, subscription } = await withContext(async (ctx) => {
        await checkPlan(ctx.db, opts.plan);
        return ctx.db.transaction((tx) =>
          createTenant(tx, {
            name: opts.name,
            plan: opts.plan,
            trialEndsAt: opts.trialEnds ?? null,
            quota: opts.quota ?? null,
            industryCode: opts.industry ?? null,
          }),
        );
      });
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
  tenant
    .command('list')
    .description('list tenants with plan and subscription status')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const rows = await withContext((ctx) =>
        ctx.db.query<Record<string, unknown>>(
          `SELECT t.id, t.name, s.plan_id AS plan, s.status AS subscription_status, t.created_at
           FROM tenants t LEFT JOIN subscriptions s ON s.tenant_id = t.id
           ORDER BY t.created_at, t.id`,
        ),
      );
      print(Boolean(opts.json), rows, table(rows, ['id', 'name', 'plan', 'subscription_status']));
    });
}

function userCommands(program: Command): void {
  const user = program.command('user').description('manage dashboard users');
  user
    .command('create')
    .description('create a dashboard user')
    .requiredOption('--tenant <id-or-name>', 'tenant id or exact name')
    .requiredOption('--email <email>', 'login e-mail', parseEmail)
    .requiredOption('--password <password>', 'password (at least 8 characters)', parsePassword)
    .option('--role <role>', `one of ${ROLES.join(', ')}`, parseRole, 'owner' as Role)
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <phone>')
    .option('--company <company>')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const created = await withContext(async (ctx) => {
        const tenant = await resolveTenant(ctx.db, opts.tenant);
        if (await findUserByEmail(ctx.db, opts.email)) {
          throw new CliError(`a user with the e-mail ${opts.email} already exists`);
        }
        return insertUser(ctx.db, tenant.id, {
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
  user
    .command('list')
    .description("list a tenant's dashboard users")
    .requiredOption('--tenant <id-or-name>', 'tenant id or exact name')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const rows = await withContext(async (ctx) => {
        const tenant = await resolveTenant(ctx.db, opts.tenant);
        return everyRow((page) => listTeamUsers(ctx.db, tenant.id, page));
      });
      print(
        Boolean(opts.json),
        rows,
        table(rows, ['id', 'email', 'role', 'first_name', 'last_name', 'is_active', 'last_login_at']),
      );
    });
}

function keyCommands(program: Command): void {
  const key = program.command('key').description('manage tenant API keys');
  key
    .command('create')
    .description("generate the tenant's API key (shown once; the previous key stops working)")
    .requiredOption('--tenant <id-or-name>', 'tenant id or exact name')
    .option('--expires-in <duration>', 'e.g. 30d, 12h, 90m (more than zero)', parseDuration)
    .option('--name <name>', 'label')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const { key: plain, record } = await withContext(async (ctx) => {
        const tenant = await resolveTenant(ctx.db, opts.tenant);
        return ctx.apiKeys.issue({
          tenantId: tenant.id,
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
  key
    .command('revoke')
    .description('revoke an API key at once')
    .requiredOption('--tenant <id-or-name>', 'tenant id or exact name')
    .requiredOption('--id <key-id>', 'id of the key (see the dashboard or GET /api/api-keys)')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      await withContext(async (ctx) => {
        const tenant = await resolveTenant(ctx.db, opts.tenant);
        const { isUuid } = await import('../shared/ids.js');
        if (!isUuid(opts.id) || !(await ctx.apiKeys.revoke(tenant.id, opts.id))) {
          throw new CliError(`tenant '${tenant.name}' has no API key ${opts.id}`);
        }
      });
      print(Boolean(opts.json), { id: opts.id, revoked: true }, `API key ${opts.id} revoked`);
    });
}

function botCommands(program: Command): void {
  program
    .command('bot')
    .description('bots')
    .command('list')
    .description("list a tenant's bots")
    .requiredOption('--tenant <id-or-name>', 'tenant id or exact name')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const rows = await withContext(async (ctx) => {
        const tenant = await resolveTenant(ctx.db, opts.tenant);
        const bots = await everyRow((page) => listBots(ctx.db, tenant.id, page));
        return bots.map(({ id, name, status, is_active, model, created_at }) => ({
          id,
          name,
          status,
          is_active,
          model,
          created_at,
        }));
      });
      print(Boolean(opts.json), rows, table(rows, ['id', 'name', 'status', 'is_active', 'model']));
    });
}

export interface CliHooks {
  /** Starts the HTTP service (`parley serve`, also without a command). */
  serve(): Promise<void>;
}

export function buildCli(hooks: CliHooks): Command {
  const program = new Command('parley')
    .description('Parley: multi-tenant platform for AI chatbots')
    .version(VERSION, '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .showSuggestionAfterError(true)
    .argument('[command]', 'a command below; none starts the service')
    .action(async (command?: string) => {
      if (command !== undefined) throw usageError(`unknown command '${command}' (see parley --help)`);
      await hooks.serve();
    });

  program
    .command('serve')
    .description('start the HTTP service (applies migrations; seeds a demo tenant on an empty database)')
    .action(() => hooks.serve());

  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const applied = await withContext((ctx) => migrate(ctx.db), { migrate: false });
      print(
        Boolean(opts.json),
        { applied },
        applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date',
      );
    });

  tenantCommands(program);
  userCommands(program);
  keyCommands(program);
  botCommands(program);

  program
    .command('demo')
    .description('create a demo tenant with a bot, knowledge base, owner login and API key')
    .option('--json', 'machine-readable output')
    .action(async (opts) => {
      const config = loadConfig();
      const seed = await withContext(async (ctx) => {
        if (await findUserByEmail(ctx.db, 'demo@parley.local')) {
          throw new CliError('a demo tenant already exists (its user demo@parley.local is taken)');
        }
        return seedDemo(ctx);
      });
      print(
        Boolean(opts.json),
        {
          tenant_id: seed.tenantId,
          bot_id: seed.botId,
          api_key: seed.apiKey,
          email: seed.email,
          password: seed.password,
          chat_url: `${config.publicBaseUrl.replace(/\/+$/, '')}/api/bot-chat/${seed.botId}/chat`,
        },
        describeDemo(seed, config.publicBaseUrl.replace(/\/+$/, '')),
      );
    });

  return program;
}

/** The one-line message and exit code of any error a command can end with. */
export function describeError(error: unknown): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof CommanderError) {
    return {
      message: error.message.replace(/^error: /, ''),
      exitCode: error.exitCode === 0 ? 0 : EXIT.usage,
    };
  }
  if (error instanceof InvalidArgumentError) return { message: error.message, exitCode: EXIT.usage };
  if (error instanceof ConfigError)
    return { message: `configuration error: ${error.message}`, exitCode: EXIT.failed };
  if (error instanceof DataDirLockedError) return { message: error.message, exitCode: EXIT.failed };
  if (error instanceof AppError) return { message: error.message, exitCode: EXIT.failed };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '23505') return { message: 'that record already exists', exitCode: EXIT.failed };
  if (code === 'ECONNREFUSED')
    return { message: 'the database cannot be reached (connection refused)', exitCode: EXIT.failed };
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  return { message: `unexpected error: ${message}`, exitCode: EXIT.failed };
}

/** Runs the CLI and returns the exit code; errors are printed in words (JSON with --json). */
export async function runCli(argv: string[], hooks: CliHooks): Promise<number> {
  const json = argv.includes('--json');
  try {
    await buildCli(hooks).parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    const { message, exitCode } = describeError(error);
    if (exitCode === EXIT.ok) return exitCode;
    if (json) console.log(JSON.stringify({ error: { message, exit_code: exitCode } }));
    else console.error(`parley: ${message}`);
    return exitCode;
  }
}
