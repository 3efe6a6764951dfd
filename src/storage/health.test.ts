// Storage health follows the outcome of writes: a failed write marks it failing (counted), the
// next successful write clears it, and a caller waiting for durability hears 503 at the first failure.
import { describe, expect, it } from 'vitest'
import { AppError } from '../infra/errors.js'
import { createMetrics } from '../infra/metrics.js'
import { StorageHealth, trackWrites } from './health.js'
import { MemoryDocStore } from './memory.js'

const entry = (n: number) => ({ user: 'u', at: n, update: Uint8Array.of(n) })

async function failures(metrics: ReturnType<typeof createMetrics>): Promise<number> {
  const m = await metrics.storageWriteFailures.get()
  return m.values.reduce((n, v) => n + v.value, 0)
}

describe('storage health', () => {
  it('a failed write marks storage failing and counts it; the next successful write clears it', async () => {
    const metrics = createMetrics()
    const health = new StorageHealth(metrics)
    const store = trackWrites(new MemoryDocStore(), health)
    await store.append('o/d/main', 1, [entry(1)])
    expect(health.ok).toBe(true)
    await expect(store.append('o/d/main', 5, [entry(5)])).rejects.toThrow(/out of order/) // a real refusal
    expect(health.ok).toBe(false)
    expect(await failures(metrics)).toBe(1)
    expect((await metrics.storageHealthy.get()).values[0]?.value).toBe(0)
    await store.append('o/d/main', 2, [entry(2)])
    expect(health.ok).toBe(true)
    expect((await metrics.storageHealthy.get()).values[0]?.value).toBe(1)
  })

  it('a caller waiting for durability gets 503 with Retry-After at the first failure, or the result', async () => {
    const health = new StorageHealth()
    const store = trackWrites(new MemoryDocStore(), health)
    let release!: () => void
    const slow = new Promise<string>((r) => (release = () => r('durable')))
    const waiting = health.untilDurable(slow)
    await store.append('o/d/main', 9, [entry(9)]).catch(() => {})
    const err = await waiting.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AppError)
    expect(err).toMatchObject({ code: 'unavailable', status: 503, extra: { retryAfterSec: 1 } })
    release()
    expect(await health.untilDurable(Promise.resolve('durable'))).toBe('durable')
  })

  it('a refused prune is not storage failing', async () => {
    const health = new StorageHealth()
    const store = trackWrites(new MemoryDocStore(), health)
    await store.append('o/d/main', 1, [entry(1)])
    await expect(store.prune('o/d/main', 1)).rejects.toThrow()
    expect(health.ok).toBe(true)
  })
})
