/** Confirmed, pending-payment and free places as shares of the capacity (0–100 each). */
export function capacityShares(capacity: number, confirmed: number, pending: number) {
  if (capacity <= 0) return { confirmed: 0, pending: 0, free: 0, freePlaces: 0 };
  const paid = Math.max(0, confirmed - pending);
  const freePlaces = Math.max(0, capacity - confirmed);
  const pct = (n: number) => Math.round((n / capacity) * 1000) / 10;
  return {
    confirmed: pct(paid),
    pending: pct(Math.min(pending, confirmed)),
    free: pct(freePlaces),
    freePlaces,
  };
}
