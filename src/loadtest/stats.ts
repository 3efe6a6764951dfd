// Latency samples and their summary. Samples are kept whole (bounded by the scenario sizes) and
// sorted once at the end: exact percentiles, no histogram error.
export class Samples {
  private buf = new Float64Array(1024)
  count = 0

  add(v: number): void {
    if (this.count === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2)
      next.set(this.buf)
      this.buf = next
    }
    this.buf[this.count++] = v
  }

  /** The samples from index `from` on (a copy): what was added since a reader last looked. */
  since(from: number): number[] {
    return Array.from(this.buf.subarray(from, this.count))
  }

  summary(): Summary {
    const n = this.count
    if (n === 0) return { n: 0, mean: null, p50: null, p90: null, p95: null, p99: null, max: null }
    const s = this.buf.slice(0, n).sort()
    let sum = 0
    for (let i = 0; i < n; i++) sum += s[i]!
    const pick = (q: number): number => s[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!
    return {
      n,
      mean: round(sum / n),
      p50: round(pick(0.5)),
      p90: round(pick(0.9)),
      p95: round(pick(0.95)),
      p99: round(pick(0.99)),
      max: round(s[n - 1]!),
    }
  }
}

export interface Summary {
  n: number
  mean: number | null
  p50: number | null
  p90: number | null
  p95: number | null
  p99: number | null
  max: number | null
}

export function round(v: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(v * f) / f
}
