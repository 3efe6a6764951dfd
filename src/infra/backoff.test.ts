import { describe, expect, it } from 'vitest'
import { backoffMs } from './backoff.js'

describe('backoffMs', () => {
  it('doubles from the first delay up to the cap, and never overflows', () => {
    const b = { firstMs: 50, maxMs: 1_000 }
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, b))).toEqual([50, 100, 200, 400, 800, 1_000, 1_000])
    expect(backoffMs(10_000, b)).toBe(1_000)
    expect(backoffMs(-1, b)).toBe(50)
  })

  it('spreads a delay over -50 %..+50 % with a random number', () => {
    const b = { firstMs: 1_000, maxMs: 3_600_000 }
    expect([0, 0.5, 0.999].map((r) => backoffMs(2, b, r))).toEqual([2_000, 4_000, 5_996])
  })
})
