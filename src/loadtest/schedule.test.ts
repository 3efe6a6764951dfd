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
})
