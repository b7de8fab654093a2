import { describe, expect, it } from 'vitest';
import { migrate, splitStatements } from '../../src/db/migrate.js';
import { describeEachBackend } from '../helpers/db.js';

describe('splitStatements', () => {
  it('splits at statement ends and keeps quoted text, dollar bodies and comments out of the way', () => {
    const sql = `-- a comment; with a semicolon
CREATE TABLE a (x text DEFAULT 'semi;colon');
CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;
INSERT INTO a VALUES ('it''s');`;
    expect(splitStatements(sql)).toEqual([
      "CREATE TABLE a (x text DEFAULT 'semi;colon')",
      'CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql',
      "INSERT INTO a VALUES ('it''s')",
    ]);
  });
});

/** Tables that are not tenant data: the migration ledger and the plan catalogue. */
const GLOBAL_TABLES = ['schema_migrations', 'plans', 'tenants'];

describeEachBackend('schema', (get) => {
  it('applies nothing a second time', async () => {
    expect(await migrate(get().db)).toEqual([]);
  });

  it('gives every tenant-owned table a tenant_id that is removed with the tenant', async () => {
    const tables = await get().db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const owned = tables.map((t) => t.table_name).filter((t) => !GLOBAL_TABLES.includes(t));
    expect(owned.length).toBeGreaterThan(5);
    const cascades = await get().db.query<{ table_name: string }>(
      `SELECT tc.table_name FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name
       JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name
       WHERE tc.constraint_type = 'FOREIGN KEY' AND kcu.column_name = 'tenant_id'
         AND ccu.table_name = 'tenants' AND rc.delete_rule = 'CASCADE'`,
    );
    const cascading = new Set(cascades.map((c) => c.table_name));
    // Child rows of a channel connection or a call go with their parent, which goes with the tenant.
    const children = await get().db.query<{ child: string; parent: string }>(
      `SELECT tc.table_name AS child, ccu.table_name AS parent FROM information_schema.table_constraints tc
       JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name
       WHERE tc.constraint_type = 'FOREIGN KEY' AND rc.delete_rule = 'CASCADE'`,
    );
    const CHILD_TABLES = ['channel_error_counts', 'channel_status_events', 'channel_opt_outs', 'voice_turns'];
    for (const child of CHILD_TABLES) {
      const parents = children.filter((c) => c.child === child).map((c) => c.parent);
      expect(
        parents.some((p) => cascading.has(p)),
        child,
      ).toBe(true);
      cascading.add(child);
    }
    expect(owned.filter((t) => !cascading.has(t))).toEqual([]);
  });
});
