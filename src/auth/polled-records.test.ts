import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PolledRecords, VersionPoll, type RecordSource } from './polled-records.js'

/** A control plane in a Map, counting the reads each cache and the poll make. */
function source() {
  const data = new Map<string, unknown>()
  const reads = { get: 0, getMany: 0, list: 0 }
  const s: RecordSource = {
    get: async <T>(k: string) => (reads.get++, data.get(k) as T | undefined),
    getMany: async <T>(ks: string[]) => (reads.getMany++, ks.map((k) => data.get(k) as T | undefined)),
    list: async <T>(prefix: string) => (
      reads.list++,
      [...data].filter(([k]) => k.startsWith(`${prefix}/`)).map(([key, value]) => ({ key, value: value as T }))
    ),
  }
  return { data, reads, s }
}

/** The poll's timer is faked: each period passes when the test says, its reads settled in between. */
const pass = (ms: number) => vi.advanceTimersByTimeAsync(ms)

describe('VersionPoll', () => {
  const stops: (() => Promise<void>)[] = []
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop()
    vi.useRealTimers()
  })

  it('checks every cache with one read a period, and re-reads only the cache whose version moved', async () => {
    const { data, reads, s } = source()
    data.set('a/1', 'one')
    const seen: string[][] = []
    const a = new PolledRecords<string>(s, 'a', 'ameta/version', () => undefined)
    const b = new PolledRecords<string>(s, 'b', 'bmeta/version', () => undefined)
    b.onChange((changed) => seen.push(changed))
    const poll = new VersionPoll(s, 40)
    await a.start(poll, (err) => expect.fail(String(err)))
    await b.start(poll, (err) => expect.fail(String(err)))
    stops.push(
      () => a.stop(),
      () => b.stop(),
    )
    const loaded = { ...reads }
    expect(loaded).toEqual({ get: 2, getMany: 0, list: 2 })

    await pass(220)
    expect(reads.getMany).toBe(5) // one read of both version records a period...
    expect(reads.get).toBe(loaded.get) // ...and nothing else while nothing changed
    expect(reads.list).toBe(loaded.list)

    data.set('b/1', 'new')
    data.set('bmeta/version', { n: 1 }) // another process's write
    await pass(40)
    expect(seen).toEqual([['new']])
    expect(reads.list).toBe(loaded.list + 1) // b re-read, a not
  })

  it('stops its timer when the last cache leaves', async () => {
    const { reads, s } = source()
    const poll = new VersionPoll(s, 20)
    const a = new PolledRecords<string>(s, 'a', 'ameta/version', () => undefined)
    await a.start(poll, () => undefined)
    await pass(70)
    expect(reads.getMany).toBe(3)
    await a.stop()
    await pass(100)
    expect(reads.getMany).toBe(3)
  })
})
