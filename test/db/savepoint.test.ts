import { expect, it } from 'vitest';
import { inSavepoint, type Queryable } from '../../src/db/database.js';
import { describeEachBackend } from '../helpers/db.js';

describeEachBackend('savepoints', (get) => {
  const names = (tx: Queryable, tag: string) =>
    tx.query<{ name: string }>(`SELECT name FROM savepoint_probe WHERE tag = $1 ORDER BY name`, [tag]);

  it('keeps a kept result, takes back a refused one and a throw, and the transaction goes on', async () => {
    const db = get().db;
    await db.query('CREATE TABLE IF NOT EXISTS savepoint_probe (tag text, name text)');
    const tag = `t${Date.now()}`;
    const insert = (tx: Queryable, name: string) =>
      tx.query('INSERT INTO savepoint_probe (tag, name) VALUES ($1, $2)', [tag, name]);
    const seen = await db.transaction(async (tx) => {
      await insert(tx, 'before');
      const kept = await inSavepoint(tx, 'probe', async () => (await insert(tx, 'kept'), { ok: true }));
      const refused = await inSavepoint(
        tx,
        'probe',
        async () => (await insert(tx, 'refused'), { ok: false }),
        (result) => result.ok,
      );
      await expect(
        inSavepoint(tx, 'probe', async () => {
          await insert(tx, 'thrown');
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await insert(tx, 'after');
      return { kept, refused };
    });
    expect(seen).toEqual({ kept: { ok: true }, refused: { ok: false } });
    expect((await names(db, tag)).map((row) => row.name)).toEqual(['after', 'before', 'kept']);
  });

  it('refuses a savepoint name that is not a plain word', async () => {
    await expect(
      get().db.transaction((tx) => inSavepoint(tx, 'x; DROP TABLE bots', async () => 1)),
    ).rejects.toThrow('invalid savepoint name');
  });
});
