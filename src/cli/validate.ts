/**
 * Checks of command-line values, the same rules the API applies: e-mail addresses by the
 * validator's `email` format, roles and plans from their closed lists, positive durations.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { InvalidArgumentError } from 'commander';
import type { Queryable } from '../db/database.js';
import { ROLES, type Role } from '../modules/auth/index.js';
import { isUuid } from '../shared/ids.js';
import { CliError } from './errors.js';

const ajv = new Ajv();
addFormats.default(ajv);
const isEmail = ajv.compile({ type: 'string', format: 'email', maxLength: 255 });

export function parseEmail(value: string): string {
  if (!isEmail(value)) throw new InvalidArgumentError(`not an e-mail address: ${value}`);
  return value;
}

export function parseDate(value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError(`not a date: ${value}`);
  return date;
}

export function parseWholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`not a whole number: ${value}`);
  return Number(value);
}

/** "30d", "12h", "90m" → milliseconds; zero is refused (a key that expires at once is a mistake). */
export function parseDuration(value: string): number {
  const match = /^(\d+)([dhm])$/.exec(value);
  if (!match) throw new InvalidArgumentError(`use a duration like 30d, 12h or 90m, not ${value}`);
  const amount = Number(match[1]);
  if (amount === 0) throw new InvalidArgumentError(`a duration must be longer than zero, not ${value}`);
  const unit = { d: 86400_000, h: 3600_000, m: 60_000 }[match[2] as 'd' | 'h' | 'm'];
  return amount * unit;
}

export function parseRole(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`role must be one of ${ROLES.join(', ')}`);
  }
  return value as Role;
}

export function parsePassword(value: string): string {
  if (value.length < 8) throw new InvalidArgumentError('password needs at least 8 characters');
  return value;
}

/** The plan ids of the catalogue, for checks and messages. */
export async function checkPlan(db: Queryable, plan: string): Promise<void> {
  const plans = (await db.query<{ id: string }>('SELECT id FROM plans ORDER BY id')).map((p) => p.id);
  if (!plans.includes(plan)) {
    throw new CliError(`unknown plan '${plan}'; plans: ${plans.join(', ')}`, 2);
  }
}

/** A tenant named by id or by its exact name (refused when several tenants share the name). */
export async function resolveTenant(db: Queryable, ref: string): Promise<{ id: string; name: string }> {
  const rows = isUuid(ref)
    ? await db.query<{ id: string; name: string }>('SELECT id, name FROM tenants WHERE id = $1', [ref])
    : await db.query<{ id: string; name: string }>(
        'SELECT id, name FROM tenants WHERE name = $1 ORDER BY created_at',
        [ref],
      );
  if (rows.length === 0) throw new CliError(`no tenant with id or name '${ref}'`);
  if (rows.length > 1) {
    throw new CliError(
      `${rows.length} tenants are named '${ref}'; use the id: ${rows.map((r) => r.id).join(', ')}`,
    );
  }
  return rows[0]!;
}
