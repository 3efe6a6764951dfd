import { describe, expect, it } from 'vitest'
import { KeyedBuckets, TokenBucket } from './rate-limit.js'

describe('TokenBucket', () => {
  it('allows the burst at once, then exactly the refill rate', () => {
    const b = new TokenBucket(10, 5, 0)
    for (let i = 0; i < 10; i++) expect(b.take(1, 0)).toBe(true)
    expect(b.take(1, 0)).toBe(false)
    expect(b.waitMs(1, 0)).toBe(200)
    expect(b.take(1, 199)).toBe(false)
    expect(b.take(1, 200)).toBe(true)
    // A long pause refills to the capacity, never past it.
    expect(b.take(11, 60_000)).toBe(false)
    expect(b.take(10, 60_000)).toBe(true)
  })

  it('with rate 0 is off', () => {
    const b = new TokenBucket(1, 0, 0)
    for (let i = 0; i < 100; i++) expect(b.take(1_000, 0)).toBe(true)
    expect(b.waitMs(1_000, 0)).toBe(0)
  })
})

describe('KeyedBuckets', () => {
  it('keeps one bucket per key', () => {
    const k = new KeyedBuckets(2, 1)
    expect(k.take('a', 0)).toBe(true)
    expect(k.take('a', 0)).toBe(true)
    expect(k.take('a', 0)).toBe(false)
    expect(k.take('b', 0)).toBe(true)
    expect(k.waitMs('a', 0)).toBe(1000)
    expect(k.waitMs('never-seen', 0)).toBe(0)
  })

  it('never holds more than maxKeys addresses and forgets refilled ones', () => {
    const k = new KeyedBuckets(1, 1, 100)
    for (let i = 0; i < 1_000; i++) k.take(`10.0.${i >> 8}.${i & 255}`, 0)
    expect(k.size).toBeLessThanOrEqual(100)
    k.take('late', 60_000) // a sweep: every bucket refilled long ago
    expect(k.size).toBe(1)
  })
})
