import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '../../src/db/errors.js';
import { openPostgres } from '../../src/db/postgres.js';
import { Health } from '../../src/health.js';

describe('database error classification', () => {
  it('counts lost, refused and timed-out connections and server shutdowns as unavailable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([refused, refused]))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).toBe(true);
    for (const code of ['57P01', '57P03', '08006', '53300', '57014']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
    }
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: refused }))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError())).toBe(true);
  });

  it('leaves errors of the query itself alone', () => {
    for (const code of ['23505', '42P01', '22P02', '40001']) {
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(false);
    }
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });

  it('a pool without a server fails within the connect timeout and reports the outage once', async () => {
    const lines: string[] = [];
    const health = new Health();
    health.attachLog({ warn: (_o, msg) => lines.push(msg), info: (_o, msg) => lines.push(msg) });
    const db = openPostgres('postgres://postgres@127.0.0.1:9/none', 2, {
      connectTimeoutMs: 500,
      availability: health.database,
    });
    const started = Date.now();
    await expect(db.query('SELECT 1')).rejects.toSatisfy(isDatabaseUnavailable);
    await expect(db.query('SELECT 1')).rejects.toSatisfy(isDatabaseUnavailable);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(lines).toEqual(['database unavailable']);
    expect(health.missing()).toEqual(['database']);
    health.stop();
    await db.close();
  });

  it('a statement that began before the outage and finishes in it does not end the outage', () => {
    const lines: string[] = [];
    const health = new Health();
    health.attachLog({ warn: (_o, msg) => lines.push(msg), info: (_o, msg) => lines.push(msg) });
    const before = health.database.outages;
    health.database.markDown(new Error('Connection terminated'));
    health.database.markUp(before);
    expect(health.missing()).toEqual(['database']);
    const during = health.database.outages;
    health.database.markUp(during);
    expect(health.missing()).toEqual([]);
    expect(lines).toEqual(['database unavailable', 'database available again']);
    health.stop();
  });
});
