import bcrypt from 'bcrypt';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CompareClock,
  bcryptCost,
  failurePaddingMs,
  needsRehash,
} from '../../src/modules/auth/login-timing.js';
import { insertUser, slowestPasswordCost } from '../../src/modules/auth/repository.js';
import { describeApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

describe('sign-in timing decisions', () => {
  it('reads the cost of a bcrypt hash and nothing else', () => {
    const cases: Array<[string, number | undefined]> = [
      ['$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234', 10],
      ['$2a$04$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234', 4],
      ['$2y$12$abcdefghijklmnopqrstuu', 12],
      ['x', undefined],
      ['$argon2id$v=19$m=65536', undefined],
      ['$2b$1$short', undefined],
    ];
    for (const [hash, cost] of cases) expect(bcryptCost(hash), hash).toBe(cost);
  });

  it('rehashes a matched hash whose cost differs from the configured one, up or down', () => {
    const cases: Array<[string, number, boolean]> = [
      ['$2b$10$…', 10, false],
      ['$2b$12$…', 10, true],
      ['$2b$08$…', 10, true],
      ['not a bcrypt hash', 10, false],
    ];
    for (const [hash, current, expected] of cases) expect(needsRehash(hash, current), hash).toBe(expected);
  });

  it('pads a failure up to the floor, never below zero', () => {
    const cases: Array<[number, number, number]> = [
      [60, 60, 0],
      [15, 60, 45],
      [0, 240, 240],
      [300, 240, 0],
      [20, 0, 0],
    ];
    for (const [elapsed, floor, expected] of cases) {
      expect(failurePaddingMs(elapsed, floor), `${elapsed} → ${floor}`).toBe(expected);
    }
  });

  it('sets the floor to the mean comparison at the slowest stored cost: measured when there is one, else scaled', () => {
    const clock = new CompareClock(10, 5);
    expect(clock.floorMs(10)).toBe(0);
    clock.record(50, 10);
    clock.record(15, 8); // a quarter of the work: 60 at cost 10
    clock.record(70, 10);
    const cases: Array<[number | undefined, number]> = [
      [10, 60],
      // Nothing at cost 12 measured yet: four times the work of cost 10.
      [12, 240],
      // All stored hashes cheaper than, or none at, the configured cost: the configured cost.
      [8, 60],
      [undefined, 60],
    ];
    for (const [slowest, floor] of cases) expect(clock.floorMs(slowest), String(slowest)).toBe(floor);
    // Measured cost-12 comparisons (a busy machine: more than 4×) are taken as they are.
    clock.record(300, 12);
    clock.record(270, 12);
    clock.record(330, 12);
    expect(clock.has(12)).toBe(true);
    expect(clock.has(11)).toBe(false);
    expect(clock.floorMs(12)).toBe(300);
    // Only the last five per cost count.
    for (let i = 0; i < 5; i += 1) clock.record(80, 10);
    expect(clock.floorMs(10)).toBe(80);
  });
});

describeApp('sign-in rehashes to the configured cost', (get) => {
  const storedCost = async (id: string) =>
    bcryptCost(
      (
        await get().db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [id])
      )[0]!.password_hash,
    );
  const login = (email: string, password: string) =>
    get().app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password },
      remoteAddress: `10.11.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    });

  it('brings a cheaper or dearer hash to BCRYPT_COST on a successful sign-in, never on a failed one', async () => {
    const tenant = await buildTenant(get().ctx);
    const configured = get().ctx.config.auth.bcryptCost;
    for (const cost of [configured + 2, configured + 1]) {
      const email = `cost-${cost}-${randomUUID()}@example.test`;
      const user = await insertUser(get().db, tenant.id, {
        email,
        passwordHash: await bcrypt.hash('the password', cost),
        role: 'viewer',
      });
      expect((await login(email, 'a wrong password')).statusCode).toBe(401);
      expect(await storedCost(user.id)).toBe(cost);
      expect((await login(email, 'the password')).statusCode).toBe(200);
      expect(await storedCost(user.id)).toBe(configured);
      // The new hash holds the same password.
      expect((await login(email, 'the password')).statusCode).toBe(200);
    }
    // An account already at the configured cost keeps its hash.
    const before = (
      await get().db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [
        tenant.owner.id,
      ])
    )[0]!.password_hash;
    expect((await login(tenant.owner.email, tenant.owner.password)).statusCode).toBe(200);
    const after = (
      await get().db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [
        tenant.owner.id,
      ])
    )[0]!.password_hash;
    expect(after).toBe(before);
  });

  it('reads the slowest cost among all stored password hashes, passing over anything that is not bcrypt', async () => {
    const tenant = await buildTenant(get().ctx);
    const other = await buildTenant(get().ctx);
    const configured = get().ctx.config.auth.bcryptCost;
    expect(await slowestPasswordCost(get().db)).toBe(configured);
    await insertUser(get().db, tenant.id, {
      email: `odd-${randomUUID()}@example.test`,
      passwordHash: '$2b$99-not-a-hash',
      role: 'viewer',
    });
    expect(await slowestPasswordCost(get().db)).toBe(configured);
    const dear = await insertUser(get().db, other.id, {
      email: `dear-${randomUUID()}@example.test`,
      passwordHash: await bcrypt.hash('the password', configured + 3),
      role: 'viewer',
    });
    expect(await slowestPasswordCost(get().db)).toBe(configured + 3);
    await get().db.query('DELETE FROM users WHERE id = $1', [dear.id]);
    expect(await slowestPasswordCost(get().db)).toBe(configured);
  });
});
