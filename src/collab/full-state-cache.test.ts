import { afterEach, describe, expect, it, vi } from 'vitest'
import { FullStateCache } from './full-state-cache.js'

function counting(): { encode: () => Uint8Array; count: () => number } {
  let n = 0
  return { encode: () => new Uint8Array([++n]), count: () => n }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('FullStateCache', () => {
  it('encodes once for joins that overlap, and drops the frame when the last one is sent (keep 0)', () => {
    const e = counting()
    const c = new FullStateCache(e.encode, 0)
    const a = c.acquire()
    const b = c.acquire()
    expect(b).toBe(a)
    expect(e.count()).toBe(1)
    c.release()
    expect(c.held).toBe(true) // one join still sending
    c.release()
    expect(c.held).toBe(false)
    expect(c.acquire()).toEqual(new Uint8Array([2]))
    expect(e.count()).toBe(2)
  })

  it('keeps nothing for a document joined once; once joins repeat within keepMs it keeps the frame for keepMs after the last, then drops it', () => {
    vi.useFakeTimers()
    const e = counting()
    const c = new FullStateCache(e.encode, 1000)
    c.acquire()
    c.release()
    expect(c.held).toBe(false) // one join: no second copy of the document
    vi.advanceTimersByTime(500)
    c.acquire() // a second join within keepMs of the first: joins repeat
    expect(e.count()).toBe(2)
    c.release()
    vi.advanceTimersByTime(900)
    expect(c.held).toBe(true)
    c.acquire() // a join within the window: no encode, and the window restarts when it is sent
    expect(e.count()).toBe(2)
    vi.advanceTimersByTime(5000)
    expect(c.held).toBe(true) // never dropped while a join is sending it
    c.release()
    vi.advanceTimersByTime(999)
    expect(c.held).toBe(true)
    vi.advanceTimersByTime(1)
    expect(c.held).toBe(false)
    vi.advanceTimersByTime(5000)
    c.acquire() // long after the last join: a single join again
    expect(e.count()).toBe(3)
    c.release()
    expect(c.held).toBe(false)
  })

  it('keeps the frame after joins that overlapped, even the first ones', () => {
    vi.useFakeTimers()
    const e = counting()
    const c = new FullStateCache(e.encode, 1000)
    c.acquire()
    vi.advanceTimersByTime(5000) // the first join is still sending when the second comes
    c.acquire()
    c.release()
    c.release()
    expect(e.count()).toBe(1)
    expect(c.held).toBe(true)
    vi.advanceTimersByTime(1000)
    expect(c.held).toBe(false)
  })

  it('after a change the next join gets a fresh encoding; joins still sending keep the old one', () => {
    vi.useFakeTimers()
    const e = counting()
    const c = new FullStateCache(e.encode, 1000)
    const old = c.acquire()
    c.invalidate()
    expect(c.held).toBe(false)
    const fresh = c.acquire()
    expect(old).toEqual(new Uint8Array([1]))
    expect(fresh).toEqual(new Uint8Array([2]))
    c.release()
    c.release()
    vi.advanceTimersByTime(1000)
    expect(c.held).toBe(false)
  })
})
