/**
 * Gives back what a failed chat request holds: its quota reservation and its idempotency
 * claim. Both releases are idempotent (each deletes its own row, the reservation together with
 * the counted message), so one that cannot reach the database is simply run again in the
 * background, with growing pauses, until it succeeds or its lease has run out. After an outage
 * nothing stays counted or claimed. If the process ends first, the lease covers it: the sweep
 * (`sweepExpiredReservations`) gives the reservation back and the next request with the key
 * takes the claim over.
 */
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5000;

let pending = 0;

/** Releases still waiting for the database (for tests and diagnostics). */
export function pendingReleases(): number {
  return pending;
}

/**
 * Runs `release` now; when it fails, again in the background until it succeeds or `until`
 * (epoch ms: the lease's end) has passed. Never throws.
 */
export async function releaseReliably(release: () => Promise<void>, until: number): Promise<void> {
  try {
    await release();
  } catch {
    retryLater(release, until, FIRST_RETRY_MS);
  }
}

function retryLater(release: () => Promise<void>, until: number, delay: number): void {
  if (Date.now() + delay > until) return;
  pending += 1;
  const timer = setTimeout(() => {
    release().then(
      () => {
        pending -= 1;
      },
      () => {
        pending -= 1;
        retryLater(release, until, Math.min(delay * 2, MAX_RETRY_MS));
      },
    );
  }, delay);
  // A release waiting for the database does not keep a stopping process alive: the lease covers it.
  timer.unref();
}
