import { expect, it } from 'vitest';
import { genericPlan } from '../../src/db/database.js';
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

  it('runs a statement marked genericPlan with a reused generic plan, and every other one as before', async () => {
    const { db } = get();
    const marked = genericPlan("SELECT current_setting('plan_cache_mode') AS mode, $1::int AS n");
    const plain = "SELECT current_setting('plan_cache_mode') AS mode, $1::int + 0 AS n";
    // Interleaved and in parallel, so pooled connections switch back and forth.
    const runs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        db.query<{ mode: string; n: number }>(i % 3 ? plain : marked, [i]),
      ),
    );
    runs.forEach((rows, i) => expect(rows).toEqual([{ mode: i % 3 ? 'auto' : 'force_generic_plan', n: i }]));
    // A rolled-back transaction that ran a marked statement leaves no setting behind.
    await expect(
      db.transaction(async (tx) => {
        expect(await tx.query(marked, [1])).toEqual([{ mode: 'force_generic_plan', n: 1 }]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    const after = await Promise.all(Array.from({ length: 12 }, () => db.query<{ mode: string }>(plain, [0])));
    expect(after.every((rows) => rows[0]?.mode === 'auto')).toBe(true);
    expect(await db.transaction((tx) => tx.query(marked, [2]))).toEqual([
      { mode: 'force_generic_plan', n: 2 },
    ]);
  });

  it('hands every kind of parameter to a marked statement as to any other', async () => {
    const { db } = get();
    const columns = `$1::text AS quote, $2::text[] AS words, $3::int[] AS numbers, $4::timestamptz AS at,
      $5::jsonb AS doc, $6::boolean AS flag, $7::real AS share, $8::uuid AS id, $9::text AS missing`;
    const params = [
      'it\'s a \\ back\\slash and a "quote"',
      ['plain', 'with "quotes"', 'back\\slash', "apo'strophe", '{brace}', 'a,b', '', 'NULL'],
      [1, -2, 3],
      new Date('2026-01-02T03:04:05.678Z'),
      JSON.stringify({ nested: { list: [1, 'two'] }, text: "o'clock" }),
      false,
      0.25,
      '6f1c9a52-8a3e-4c62-9d51-3f1c0b7e2a10',
      null,
    ];
    const expected = await db.query(`SELECT ${columns}`, params);
    expect(await db.query(genericPlan(`SELECT ${columns}`), params)).toEqual(expected);
    expect(expected[0]).toMatchObject({ words: params[1], numbers: [1, -2, 3], flag: false, missing: null });
  });

  it('prepares a marked statement anew when a migration changes the columns it reads', async () => {
    const { db } = get();
    await db.exec('CREATE TABLE stmt_generic (id int PRIMARY KEY, label text)');
    await db.query('INSERT INTO stmt_generic VALUES ($1, $2)', [1, 'a']);
    const read = genericPlan('SELECT * FROM stmt_generic WHERE id = $1');
    await Promise.all(Array.from({ length: 12 }, () => db.query(read, [1])));
    await db.exec("ALTER TABLE stmt_generic ADD COLUMN extra text NOT NULL DEFAULT 'x'");
    expect(await db.query(read, [1])).toEqual([{ id: 1, label: 'a', extra: 'x' }]);
    const again = await Promise.all(Array.from({ length: 12 }, () => db.query(read, [1])));
    expect(again.every((rows) => rows[0]?.extra === 'x')).toBe(true);
  });
});
