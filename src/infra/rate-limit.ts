// Token buckets: a burst allowance that refills at a steady rate. One per socket for its frames and
// bytes, and one per client address (in a bounded map) for upgrade attempts and failed logins.
// Times are monotonic milliseconds (performance.now()), never the wall clock.

export class TokenBucket {
  private tokens: number
  private at: number

  /** `perSec` 0 disables the bucket (every take succeeds). */
  constructor(
    readonly capacity: number,
    readonly perSec: number,
    now: number,
  ) {
    this.tokens = capacity
    this.at = now
  }

  private refill(now: number): void {
    if (now <= this.at) return
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSec)
    this.at = now
  }

  take(n: number, now: number): boolean {
    if (this.perSec === 0) return true
    this.refill(now)
    if (this.tokens < n) return false
    this.tokens -= n
    return true
  }

  /** Milliseconds until `n` tokens are there (0 = now). */
  waitMs(n: number, now: number): number {
    if (this.perSec === 0) return 0
    this.refill(now)
    return this.tokens >= n ? 0 : Math.ceil(((n - this.tokens) / this.perSec) * 1000)
  }

  isFull(now: number): boolean {
    this.refill(now)
    return this.tokens >= this.capacity
  }
}

const SWEEP_EVERY_MS = 10_000

/**
 * One bucket per key (a client address). Full buckets are forgotten (a fresh one is the same), and
 * the map never holds more than `maxKeys`: past it the oldest entries go, so spoofed or rotating
 * addresses cannot grow memory.
 */
export class KeyedBuckets {
  private readonly buckets = new Map<string, TokenBucket>()
  private lastSweep = 0

  constructor(
    readonly capacity: number,
    readonly perSec: number,
    private readonly maxKeys = 100_000,
  ) {}

  get enabled(): boolean {
    return this.perSec > 0
  }

  private bucket(key: string, now: number): TokenBucket {
    let b = this.buckets.get(key)
    if (!b) {
      this.sweep(now)
      b = new TokenBucket(this.capacity, this.perSec, now)
      this.buckets.set(key, b)
    }
    return b
  }

  take(key: string, now: number, n = 1): boolean {
    return !this.enabled || this.bucket(key, now).take(n, now)
  }

  /** Milliseconds until `key` has `n` tokens again (0 = now); does not create an entry. */
  waitMs(key: string, now: number, n = 1): number {
    return this.enabled ? (this.buckets.get(key)?.waitMs(n, now) ?? 0) : 0
  }

  get size(): number {
    return this.buckets.size
  }

  private sweep(now: number): void {
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now
      for (const [k, b] of this.buckets) if (b.isFull(now)) this.buckets.delete(k)
    }
    while (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!)
  }
}
