/**
 * Sign-in timing that tells nothing: a failed sign-in takes as long as a bcrypt comparison at
 * the slowest cost among the stored password hashes, whether the e-mail is unknown (compared
 * against a stand-in hash at `BCRYPT_COST`), the account's hash is cheaper (padded by a timer)
 * or as slow as that (the floor is measured, see CompareClock). A successful sign-in rehashes the password at `BCRYPT_COST`, so once every
 * account has signed in the slowest cost is the configured one and nothing is padded beyond it.
 * Padding is a timer, not CPU: a flood of failed sign-ins costs no more CPU than before.
 */

const BCRYPT_HASH = /^\$2[abxy]\$(\d{2})\$/;

/** The cost (log2 rounds) of a bcrypt hash, or undefined when the text is not one. */
export function bcryptCost(hash: string): number | undefined {
  const match = BCRYPT_HASH.exec(hash);
  return match ? Number(match[1]) : undefined;
}

/** Whether a hash that just matched should be replaced by one at the configured cost (cheaper or dearer). */
export function needsRehash(hash: string, currentCost: number): boolean {
  const cost = bcryptCost(hash);
  return cost !== undefined && cost !== currentCost;
}

/** How long a failed sign-in still waits after its comparison took `elapsedMs` (never below zero). */
export function failurePaddingMs(elapsedMs: number, floorMs: number): number {
  return Math.max(0, floorMs - elapsedMs);
}

/**
 * Recent bcrypt comparison times, kept per cost. The floor of a failed sign-in is the mean
 * comparison at the slowest stored cost (never below the configured one): measured when such
 * comparisons happened recently, otherwise estimated from the comparisons at other costs, one
 * cost step doubling the work. Measuring the slow comparisons themselves keeps the estimate
 * right on a busy machine, where a long comparison stretches more than the doubling says.
 */
export class CompareClock {
  private readonly byCost = new Map<number, { samples: number[]; next: number }>();

  constructor(
    private readonly currentCost: number,
    private readonly size = 31,
  ) {}

  record(elapsedMs: number, cost: number): void {
    let ring = this.byCost.get(cost);
    if (!ring) this.byCost.set(cost, (ring = { samples: [], next: 0 }));
    if (ring.samples.length < this.size) ring.samples.push(elapsedMs);
    else ring.samples[ring.next] = elapsedMs;
    ring.next = (ring.next + 1) % this.size;
  }

  /** Whether a comparison at this cost was measured. */
  has(cost: number): boolean {
    return (this.byCost.get(cost)?.samples.length ?? 0) > 0;
  }

  /** How long a failed sign-in lasts at least; 0 before the first comparison. */
  floorMs(slowestStoredCost: number | undefined): number {
    const cost = Math.max(slowestStoredCost ?? this.currentCost, this.currentCost);
    const measured = this.byCost.get(cost);
    if (measured && measured.samples.length > 0) return mean(measured.samples);
    const scaled: number[] = [];
    for (const [c, ring] of this.byCost) for (const ms of ring.samples) scaled.push(ms * 2 ** (cost - c));
    return scaled.length > 0 ? mean(scaled) : 0;
  }
}

/**
 * The mean, not the median: the slowest comparisons are not padded, so their mean is what the
 * padded ones must match (comparisons on a busy machine have a long tail).
 */
function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}
