// Exponential backoff, one formula for every retry loop (group commit, Redis reconnects, site
// sweeps, webhook deliveries, busy listener ports): doubling from a first delay up to a cap.

export interface Backoff {
  /** the delay at n = 0 (ms) */
  firstMs: number
  /** no delay is longer (ms) */
  maxMs: number
}

/**
 * ms to wait at step `n` (0, 1, 2, ...): firstMs x 2^n, at most maxMs. `random` (0..1, e.g.
 * Math.random()) spreads it over -50 %..+50 %, so many retrying peers do not come back at once.
 */
export function backoffMs(n: number, b: Backoff, random?: number): number {
  const base = Math.min(b.maxMs, b.firstMs * 2 ** Math.min(Math.max(n, 0), 30))
  return random === undefined ? base : Math.round(base * (0.5 + random))
}
