import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Scheduler, type Job } from '../../src/scheduler.js';

describe('Scheduler', () => {
  // A fake clock: the test decides how much time passes, and can prove that nothing more runs.
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

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
    // 100 ms: the flaky job's 5 ms interval twenty times, far inside the busy job's 10 s.
    await vi.advanceTimersByTimeAsync(100);
    await scheduler.stop();
    // The busy job ran three passes back to back, then waited its (long) interval.
    expect(runs.filter((r) => r === 'busy')).toHaveLength(3);
    expect(runs.filter((r) => r === 'flaky').length).toBeGreaterThan(1);
    expect(errors).toHaveLength(1);
    // Stopped: no pass runs again, however much time passes.
    const after = runs.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toHaveLength(after);
    expect(vi.getTimerCount()).toBe(0);
  });
});
