import { expect, it } from 'vitest';
import { describeApp, type TestApp } from '../helpers/app.js';
import { buildTenant } from '../helpers/factories.js';

/** A fresh client address per call: counters in a shared Redis outlive a test run. */
const address = () => `198.18.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 254) + 1}`;

function login(t: TestApp, email: string, password: string, remoteAddress: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    remoteAddress,
  });
}

const variants = process.env.REDIS_URL ? [false, true] : [false];

for (const redis of variants) {
  describeApp(
    `login throttling (${redis ? 'Redis' : 'memory'})`,
    (get) => {
      it('locks the attacking (account, address), never the owner on another address', async () => {
        const t = get();
        const tenant = await buildTenant(t.ctx);
        const { email, password } = tenant.owner;
        const attackerAddress = address();
        for (let i = 0; i < 5; i += 1) {
          expect((await login(t, email, 'wrong-password', attackerAddress)).statusCode).toBe(401);
        }
        const attacker = await login(t, email, password, attackerAddress);
        expect(attacker.statusCode).toBe(429);
        expect(Number(attacker.headers['retry-after'])).toBeGreaterThan(0);
        const owner = await login(t, email, password, address());
        expect(owner.statusCode).toBe(200);
      });

      it('slows the account down when failures come from many addresses, but lets the owner in', async () => {
        const t = get();
        const tenant = await buildTenant(t.ctx);
        const { email, password } = tenant.owner;
        // Seven failures from seven addresses: no (account, address) reaches its limit.
        for (let i = 0; i < 7; i += 1) {
          expect((await login(t, email, 'wrong-password', address())).statusCode).toBe(401);
        }
        // 7 failures with a limit of 5: 100 ms × 2² = 400 ms, capped by LOGIN_MAX_DELAY_MS (300).
        expect(t.ctx.sessions.accountDelayMs(7)).toBe(300);
        expect(t.ctx.sessions.accountDelayMs(5)).toBe(100);
        expect(t.ctx.sessions.accountDelayMs(4)).toBe(0);
        const started = performance.now();
        const ownerAddress = address();
        const owner = await login(t, email, password, ownerAddress);
        const elapsed = performance.now() - started;
        expect(owner.statusCode).toBe(200);
        expect(elapsed).toBeGreaterThanOrEqual(290);
        // The success clears the account's count: the next login is not delayed.
        const again = performance.now();
        expect((await login(t, email, password, ownerAddress)).statusCode).toBe(200);
        expect(performance.now() - again).toBeLessThan(290);
      });

      it('locks an address that fails on many accounts, for every account', async () => {
        const t = get();
        const tenant = await buildTenant(t.ctx);
        const attackerAddress = address();
        for (let i = 0; i < 20; i += 1) {
          const res = await login(
            t,
            `nobody-${i}-${Math.random()}@example.test`,
            'wrong-password',
            attackerAddress,
          );
          expect(res.statusCode).toBe(401);
        }
        const blocked = await login(t, tenant.owner.email, tenant.owner.password, attackerAddress);
        expect(blocked.statusCode).toBe(429);
        expect(blocked.headers['retry-after']).toBeDefined();
        expect((await login(t, tenant.owner.email, tenant.owner.password, address())).statusCode).toBe(200);
      });
    },
    { redis, env: { LOGIN_MAX_DELAY_MS: '300' } },
  );
}

describeApp(
  'the stand-in hash for unknown e-mails has the configured cost',
  (get) => {
    it('a known e-mail with a wrong password and an unknown e-mail take about as long', async () => {
      const t = get();
      const tenant = await buildTenant(t.ctx);
      const time = async (email: string, from: string) => {
        const started = performance.now();
        const res = await login(t, email, 'wrong-password', from);
        expect(res.statusCode).toBe(401);
        return performance.now() - started;
      };
      await time('warm-up@example.test', address()); // computes the stand-in hash once
      const known: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        known.push(await time(tenant.owner.email, address()));
        unknown.push(await time(`nobody-${i}@example.test`, address()));
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
      const ratio = median(known) / median(unknown);
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    });
  },
  { env: { BCRYPT_COST: '12' } },
);
