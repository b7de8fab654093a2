/**
 * One small database interface over two engines: a node-postgres pool (production) and
 * PGlite (embedded). Both speak the same SQL, so repositories never know which one runs.
 */
export type SqlParam = string | number | boolean | null | Date | Buffer | readonly unknown[] | object;

export interface Queryable {
  query<T = Record<string, unknown>>(
    sql: string,
    params?: readonly SqlParam[] | readonly unknown[],
  ): Promise<T[]>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Statements waiting for the engine (PGlite: sent to its thread and not yet answered;
   * PostgreSQL: queries waiting for a pooled connection). Backpressure reads it.
   */
  waiting(): number;
  /** Proves the engine answers, without queueing behind waiting statements (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Connection pool counts (PostgreSQL only), read by the metrics. */
  poolStats?(): { total: number; idle: number; waiting: number };
}

/*
 * Statements of the chat's hot path run with a generic plan: PostgreSQL plans them once per
 * connection and reuses the plan, instead of planning them anew on every execution (a prepared
 * statement gets custom plans for its first five runs and keeps them while the generic plan's
 * cost estimate is worse, which the knowledge search's data-dependent estimates made the
 * rule). Only statements whose generic plan was measured to be as good as the custom ones are
 * marked (`npm run bench:statements` shows both); their texts are a fixed, small set.
 */
const genericStatements = new Set<string>();

/** Marks a statement text to run with a reused generic plan; returns the text. */
export function genericPlan(sql: string): string {
  genericStatements.add(sql);
  return sql;
}

/** Whether the statement was marked by genericPlan. */
export function usesGenericPlan(sql: string): boolean {
  return genericStatements.has(sql);
}

/** Returns the first row, or undefined. */
export async function queryOne<T>(
  db: Queryable,
  sql: string,
  params?: readonly unknown[],
): Promise<T | undefined> {
  const rows = await db.query<T>(sql, params);
  return rows[0];
}

/**
 * Runs work inside a savepoint of an open transaction. A throw rolls back to the savepoint
 * and is thrown on; a result that `keep` refuses is rolled back too, and is returned; else the
 * savepoint is released. The transaction itself goes on either way.
 */
export async function inSavepoint<T>(
  tx: Queryable,
  name: string,
  work: () => Promise<T>,
  keep: (result: T) => boolean = () => true,
): Promise<T> {
  if (!/^\w+$/.test(name)) throw new Error(`invalid savepoint name: ${name}`);
  await tx.query(`SAVEPOINT ${name}`);
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw error;
  }
  await tx.query(keep(result) ? `RELEASE SAVEPOINT ${name}` : `ROLLBACK TO SAVEPOINT ${name}`);
  return result;
}

/** Type parsers shared by both engines: bigint and numeric as numbers, date as 'YYYY-MM-DD'. */
export const OID = { int8: 20, numeric: 1700, date: 1082 } as const;
export const parseNumber = (value: string): number => Number(value);
export const keepText = (value: string): string => value;
