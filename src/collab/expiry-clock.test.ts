import { afterEach, describe, expect, it, vi } from 'vitest'
import { ExpiryClock } from './expiry-clock.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A clock whose next whole second is `leadMs` away, so tests wait milliseconds, not seconds. */
function clockWithSecondIn(leadMs: number): { now: () => number; sec: number } {
  const real = Date.now()
  const sec = Math.floor(real / 1000) + 1000
  const offset = sec * 1000 - leadMs - real
  return { now: () => Date.now() + offset, sec }
}

function item(log: string[], name: string) {
  return { expired: () => log.push(name) }
}

describe('ExpiryClock', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('expires each item once its second has passed, not before, earliest first', async () => {
    const { now, sec } = clockWithSecondIn(100)
    const clock = new ExpiryClock(now)
    const at: [string, number][] = []
    const stamped = (name: string) => ({ expired: () => at.push([name, now()]) })
    clock.add(stamped('later'), sec + 1)
    clock.add(stamped('a'), sec)
    clock.add(stamped('b'), sec)
    await vi.waitFor(() => expect(at).toHaveLength(3), { timeout: 10_000, interval: 20 })
    expect(at.map(([n]) => n)).toEqual(['a', 'b', 'later'])
    expect(at[0]![1]).toBeGreaterThanOrEqual(sec * 1000)
    expect(at[2]![1]).toBeGreaterThanOrEqual((sec + 1) * 1000)
    expect(clock.size).toBe(0)
  })

  it('never expires an item removed before its second', async () => {
    const { now, sec } = clockWithSecondIn(50)
    const clock = new ExpiryClock(now)
    const log: string[] = []
    const gone = item(log, 'gone')
    clock.add(gone, sec)
    clock.add(item(log, 'kept'), sec)
    clock.remove(gone, sec)
    await vi.waitFor(() => expect(log).toEqual(['kept']), { timeout: 10_000, interval: 20 })
    await sleep(100)
    expect(log).toEqual(['kept'])
  })

  it('expires at once what is already past', async () => {
    const clock = new ExpiryClock()
    const log: string[] = []
    clock.add(item(log, 'past'), Math.floor(Date.now() / 1000) - 5)
    await vi.waitFor(() => expect(log).toEqual(['past']), { timeout: 10_000, interval: 10 })
  })

  it('an expiry past setTimeout’s longest delay fires at its time, not when the first timer does', () => {
    vi.useFakeTimers()
    const clock = new ExpiryClock()
    const log: string[] = []
    const sec = Math.floor(Date.now() / 1000) + 30 * 24 * 3600
    clock.add(item(log, 'month'), sec)
    vi.advanceTimersByTime(2 ** 31 - 1)
    expect(log).toEqual([])
    vi.advanceTimersByTime(sec * 1000 - Date.now() + 1)
    expect(log).toEqual(['month'])
  })
})
