import { describe, expect, it } from 'vitest'
import { Gate, GateRefused } from './gate.js'

const deferred = () => {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

describe('Gate', () => {
  it('runs up to the concurrency, queues up to the limit and refuses the rest before running them', async () => {
    const gate = new Gate(1, 1, 60_000)
    const first = deferred()
    const ran: string[] = []
    const a = gate.run(async () => {
      ran.push('a')
      await first.promise
    })
    const b = gate.run(async () => void ran.push('b'))
    await expect(gate.run(async () => void ran.push('c'))).rejects.toEqual(new GateRefused('full'))
    expect([gate.active, gate.queued]).toEqual([1, 1])
    first.resolve()
    await Promise.all([a, b])
    expect(ran).toEqual(['a', 'b'])
    expect(gate.idle).toBe(true)
  })

  it('gives up on a waiter that cannot start in time, without running it', async () => {
    const gate = new Gate(1, 5, 20)
    const hold = deferred()
    const a = gate.run(() => hold.promise)
    let ran = false
    await expect(gate.run(async () => void (ran = true))).rejects.toMatchObject({ reason: 'timeout' })
    hold.resolve()
    await a
    expect(ran).toBe(false)
    expect(gate.idle).toBe(true)
  })

  it('frees the slot when the statement fails', async () => {
    const gate = new Gate(1, 0, 1000)
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(gate.run(async () => 1)).resolves.toBe(1)
  })
})
