/**
 * Gives back what a failed chat request holds: its quota reservation and its idempotency
 * claim. Both releases are idempotent (each deletes its own row, the reservation together with
 * the counted message), so one that cannot reach the database is simply run again in the
 * background, with growing pauses, until it succeeds or its lease has run out. After an outage
 * nothing stays counted or claimed. If the process ends first, the lease covers it: the sweep
 * (`sweepExpiredReservations`) gives the reservation back and the next request with the key
 * takes the claim over.
 *
 * A release waiting for its next attempt does not make the client wait: the first request that
 * meets a claim still held (the retry with the same Idempotency-Key, right after the outage)
 * runs every waiting release at once (`flushPendingReleases`), so the key is free as soon as the
 * database answers again.
 */
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 5000;

interface PendingRelease {
  release: () => Promise<void>;
  until: number;
  delay: number;
  timer: NodeJS.Timeout;
}

const pending = new Set<PendingRelease>();

/** Releases still waiting for the database (for tests and diagnostics). */
export function pendingReleases(): number {
  return pending.size;
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
  const entry: PendingRelease = {
    release,
    until,
    delay,
    timer: setTimeout(() => void attempt(entry), delay),
  };
  // A release waiting for the database does not keep a stopping process alive: the lease covers it.
  entry.timer.unref();
  pending.add(entry);
}

async function attempt(entry: PendingRelease): Promise<void> {
  // Already run (by its timer or a flush).
  if (!pending.delete(entry)) return;
  clearTimeout(entry.timer);
  try {
    await entry.release();
  } catch {
    retryLater(entry.release, entry.until, Math.min(entry.delay * 2, MAX_RETRY_MS));
  }
}

/**
 * Runs every waiting release now instead of at its next attempt; resolves when all have run
 * (those that fail again wait for their next attempt as before).
 */
export async function flushPendingReleases(): Promise<void> {
  await Promise.all([...pending].map(attempt));
}
