import { afterEach, describe, expect, it, vi } from 'vitest'
import { Schedule } from './schedule.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('Schedule', () => {
  it('never runs a send before its time on the clock, even when the timer fires early', () => {
    vi.useFakeTimers()
    let clock = 1000
    const s = new Schedule(() => clock)
    const ran: number[] = []
    s.at(1100, () => ran.push(clock))
    clock = 1099.99 // the timer fires 10 µs early on the marks' clock
    vi.advanceTimersByTime(100)
    expect(ran).toEqual([])
    clock = 1100.5
    vi.advanceTimersByTime(1)
    expect(ran).toEqual([1100.5])
  })

  it('runs nothing after the stop', () => {
    vi.useFakeTimers()
    const s = new Schedule(() => 0)
    const fn = vi.fn()
    s.later(10, fn)
    s.at(20, fn)
    s.stop()
    vi.advanceTimersByTime(100)
    expect(fn).not.toHaveBeenCalled()
    expect(s.stopped).toBe(true)
  })

  it('runs a series every period from a phase inside the first period, none at or after the end, then says it ended', () => {
    vi.useFakeTimers({ now: 0 })
    const s = new Schedule(() => Date.now())
    const ran: number[] = []
    let ended = 0
    s.every(
      1000,
      2000,
      250,
      () => ran.push(Date.now()),
      () => ended++,
    )
    vi.advanceTimersByTime(5000)
    expect(ran.length).toBeGreaterThanOrEqual(3)
    expect(ran.length).toBeLessThanOrEqual(4)
    expect(ran[0]).toBeGreaterThanOrEqual(1000)
    expect(ran[0]).toBeLessThan(1250)
    for (let i = 1; i < ran.length; i++) expect(ran[i]! - ran[i - 1]!).toBe(250)
    expect(ran.at(-1)).toBeLessThan(2000)
    expect(ended).toBe(1)
  })
})
