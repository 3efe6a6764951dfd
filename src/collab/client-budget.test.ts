import { describe, expect, it } from 'vitest'
import { ClientBudget } from './client-budget.js'

describe('per-client budget per minute', () => {
  it('allows the budget per client per minute, then refuses until the window passes', () => {
    let now = 0
    const b = new ClientBudget(2, () => now)
    expect([b.take('a'), b.take('a'), b.take('a'), b.take('b')]).toEqual([true, true, false, true])
    now = 59_999
    expect(b.take('a')).toBe(false)
    now = 60_000
    expect(b.take('a')).toBe(true)
  })

  it('keeps its table bounded: stale clients are dropped, new ones refused while it is full', () => {
    let now = 0
    const b = new ClientBudget(1, () => now, 2)
    expect([b.take('a'), b.take('b'), b.take('c')]).toEqual([true, true, false])
    now = 60_000
    expect(b.take('c')).toBe(true)
  })

  it('a budget of 0 allows nothing', () => {
    expect(new ClientBudget(0, () => 0).take('a')).toBe(false)
  })
})
