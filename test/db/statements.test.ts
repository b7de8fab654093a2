import { expect, it } from 'vitest';
import { describeEachBackend } from '../helpers/db.js';

describeEachBackend('statements with parameters', (get) => {
  it('returns the same rows as the same statement run again, on every pooled connection', async () => {
    const { db } = get();
    await db.exec('CREATE TABLE stmt_rows (id int PRIMARY KEY, label text)');
    await db.query('INSERT INTO stmt_rows VALUES ($1, $2), ($3, $4)', [1, 'a', 2, 'b']);
    // More parallel runs than pool connections: each connection prepares the statement once.
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => db.query('SELECT * FROM stmt_rows WHERE id = $1', [(i % 2) + 1])),
    );
    expect(results.map((rows) => rows[0])).toEqual(
      Array.from({ length: 25 }, (_, i) => (i % 2 === 0 ? { id: 1, label: 'a' } : { id: 2, label: 'b' })),
    );
  });

  it('keeps working when a migration changes the columns a prepared statement reads', async () => {
    const { db } = get();
    await db.exec('CREATE TABLE stmt_shape (id int PRIMARY KEY, label text)');
    await db.query('INSERT INTO stmt_shape VALUES ($1, $2)', [1, 'a']);
    const read = () => db.query('SELECT * FROM stmt_shape WHERE id = $1', [1]);
    await Promise.all(Array.from({ length: 12 }, read));
    await db.exec("ALTER TABLE stmt_shape ADD COLUMN extra text NOT NULL DEFAULT 'x'");
    expect(await read()).toEqual([{ id: 1, label: 'a', extra: 'x' }]);
    // Every connection of the pool, not only the one that noticed first.
    const again = await Promise.all(Array.from({ length: 12 }, read));
    expect(again.every((rows) => rows[0]?.extra === 'x')).toBe(true);
    // Inside a transaction the statement is prepared afresh as well.
    const inTx = await db.transaction((tx) => tx.query('SELECT * FROM stmt_shape WHERE id = $1', [1]));
    expect(inTx).toEqual([{ id: 1, label: 'a', extra: 'x' }]);
  });
});
