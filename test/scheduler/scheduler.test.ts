import { describe, expect, it } from 'vitest';
import { Scheduler, type Job } from '../../src/scheduler.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Scheduler', () => {
  it('runs each job in its own loop, again at once while work is waiting, and survives a failing pass', async () => {
    const runs: string[] = [];
    const errors: unknown[] = [];
    let backlog = 3;
    const jobs: Job[] = [
      {
        name: 'busy',
        intervalMs: 10_000,
        run: async () => {
          runs.push('busy');
          backlog -= 1;
          return backlog > 0;
        },
      },
      {
        name: 'flaky',
        intervalMs: 5,
        run: async () => {
          runs.push('flaky');
          if (runs.filter((r) => r === 'flaky').length === 1) throw new Error('boom');
          return false;
        },
      },
    ];
    const scheduler = new Scheduler(jobs, { error: (obj: unknown) => errors.push(obj) } as never);
    scheduler.start();
    await sleep(100);
    await scheduler.stop();
    // The busy job ran three passes back to back, then waited its (long) interval.
    expect(runs.filter((r) => r === 'busy')).toHaveLength(3);
    expect(runs.filter((r) => r === 'flaky').length).toBeGreaterThan(1);
    expect(errors).toHaveLength(1);
    const after = runs.length;
    await sleep(30);
    expect(runs).toHaveLength(after);
  });
});
