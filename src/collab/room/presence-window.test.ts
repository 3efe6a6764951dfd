import { describe, expect, it } from 'vitest'
import { PresenceWindow, type WindowTimers } from './presence-window.js'

/** Timers under the test's hand: `soon` runs at the next step, `later` when the clock passes it. */
function manualTimers() {
  let t = 1000
  const soon: (() => void)[] = []
  const later: { at: number; fn: () => void }[] = []
  const timers: WindowTimers = {
    now: () => t,
    soon: (fn) => {
      soon.push(fn)
      return () => soon.splice(soon.indexOf(fn), 1)
    },
    later: (fn, ms) => {
      const entry = { at: t + ms, fn }
      later.push(entry)
      return () => later.splice(later.indexOf(entry), 1)
    },
  }
  return {
    timers,
    pendingSoon: () => soon.length,
    pendingLater: () => later.length,
    /** moves the clock by `ms`, running what falls due */
    advance(ms: number) {
      for (const fn of soon.splice(0)) fn()
      t += ms
      for (const e of later.filter((x) => x.at <= t)) {
        later.splice(later.indexOf(e), 1)
        e.fn()
      }
    },
  }
}

describe('PresenceWindow', () => {
  it('a quiet room flushes a change at the end of its tick, without waiting for a window', () => {
    const m = manualTimers()
    let flushes = 0
    const w = new PresenceWindow({ minMs: 5, maxMs: 50 }, () => flushes++, m.timers)
    w.changed()
    w.changed() // the same tick: one frame
    expect([m.pendingSoon(), m.pendingLater()]).toEqual([1, 0])
    m.advance(0)
    expect(flushes).toBe(1)
    m.advance(1000) // a lull
    w.changed()
    expect([m.pendingSoon(), m.pendingLater()]).toEqual([1, 0])
  })

  it('as changes keep coming the window doubles up to the bound: at most one frame per bound, and back to the least after a lull', () => {
    const m = manualTimers()
    let flushes = 0
    const w = new PresenceWindow({ minMs: 5, maxMs: 50 }, () => flushes++, m.timers)
    // a change every millisecond for two seconds
    for (let i = 0; i < 2000; i++) {
      w.changed()
      m.advance(1)
    }
    expect(w.ms).toBe(50)
    expect(flushes).toBeLessThanOrEqual(2000 / 50 + 6) // the ramp 5, 10, 20, 40 adds a few
    expect(flushes).toBeGreaterThanOrEqual(2000 / 50 - 1)
    m.advance(500)
    w.changed()
    m.advance(0)
    expect(w.ms).toBe(5)
  })

  it('close cancels a pending flush', () => {
    const m = manualTimers()
    let flushes = 0
    const w = new PresenceWindow({ minMs: 50, maxMs: 50 }, () => flushes++, m.timers)
    w.changed()
    m.advance(1)
    w.changed() // waits for the window
    expect(m.pendingLater()).toBe(1)
    w.close()
    m.advance(100)
    expect([flushes, m.pendingLater()]).toEqual([1, 0])
  })
})
