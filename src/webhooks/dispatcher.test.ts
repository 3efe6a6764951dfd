import { describe, expect, it } from 'vitest'
import { backoffMs, leaseMs } from './dispatcher.js'

describe('webhook retry schedule', () => {
  it('doubles from 1 s, jittered by +-50 %, and never waits more than 1.5 h', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 0.5))).toEqual([1000, 2000, 4000, 8000])
    expect(backoffMs(1, 0)).toBe(500)
    expect(backoffMs(1, 0.999)).toBe(1499)
    expect(backoffMs(40, 0.999)).toBeLessThanOrEqual(1.5 * 3600_000)
  })

  it('leases a claimed delivery for longer than its attempt can take', () => {
    expect(leaseMs(10_000)).toBeGreaterThan(10_000)
  })
})
