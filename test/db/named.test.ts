import { describe, expect, it } from 'vitest';
import { named } from '../../src/db/named.js';

describe('named parameters', () => {
  it('numbers each name once, in order of first use, and leaves casts alone', () => {
    const statement = named<{ tenant: string; id: string; at: Date | null }>(
      'SELECT :id::uuid, :tenant WHERE tenant_id = :tenant AND at = coalesce(:at::timestamptz, now())',
    );
    expect(statement.text).toBe(
      'SELECT $1::uuid, $2 WHERE tenant_id = $2 AND at = coalesce($3::timestamptz, now())',
    );
    expect(statement.values({ tenant: 't', id: 'i', at: null })).toEqual(['i', 't', null]);
  });

  it('sends only the names the text uses, and refuses a used name without a value', () => {
    const statement = named<{ a: number; b?: number }>('SELECT :a');
    expect(statement.values({ a: 1, b: 2 })).toEqual([1]);
    expect(() => named<{ a?: number }>('SELECT :a').values({})).toThrow(':a has no value');
  });
});
