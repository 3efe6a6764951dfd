import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { DocBuilds } from '../collab/room/doc-builds.js'
import { MemoryDocStore } from '../storage/memory.js'
import { HistoryService, RECORD_NAME, type Builds } from './service.js'

const DAY = 24 * 60 * 60 * 1000
const config = { historyRetentionDays: 30, historyCheckpointEvery: 1000 }

async function typed(store: MemoryDocStore, docId: string, days: number[], text = 'x'): Promise<Uint8Array[]> {
  const doc = new Y.Doc()
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (const _ of days) doc.getText('t').insert(0, text)
  await store.append(
    docId,
    1,
    updates.map((update, i) => ({ user: 'ann', at: days[i]! * DAY, update })),
  )
  await store.writeSnapshot(docId, {
    seq: days.length,
    at: days[days.length - 1]! * DAY,
    state: Y.encodeStateAsUpdate(doc),
  })
  return updates
}

const seqs = async (store: MemoryDocStore, docId: string) => {
  const out: number[] = []
  for await (const e of store.readLog(docId)) out.push(e.seq)
  return out
}

/** The real DocBuilds, with the number of turns the service asked for. */
function counted(builds: DocBuilds): Builds & { turns: number } {
  const c = {
    turns: 0,
    bounded: <T>(bytes: number, use: () => Promise<T>, held?: number) => {
      c.turns++
      return builds.bounded(bytes, use, held)
    },
  }
  return c
}

/** Takes a turn of `builds` and keeps it until released. */
async function holdTurn(builds: DocBuilds): Promise<() => void> {
  let release!: () => void
  const held = new Promise<void>((r) => (release = r))
  let granted!: () => void
  const turn = new Promise<void>((r) => (granted = r))
  void builds.bounded(0, () => (granted(), held))
  await turn
  return release
}

const settled = async (p: Promise<unknown>) => {
  let done = false
  void p.then(
    () => (done = true),
    () => (done = true),
  )
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
  return done
}

// a Set and a Map in the task: what crosses to a worker thread is cloned, not only JSON
const changesetOf = (service: HistoryService, docId: string) =>
  service.run(docId, () => ({
    kind: 'changeset',
    window: { from: 0, to: 100 * DAY, by: new Set(['ann']), attr: new Map() },
    delta: true,
    ydoc: true,
  }))

describe('HistoryService', () => {
  it('a sweep folds every document past the window and prunes its log, once the record is written', async () => {
    const store = new MemoryDocStore()
    await typed(store, 'o/a/main', [1, 2, 50])
    await typed(store, 'o/b/main', [45, 46])
    const builds = counted(new DocBuilds(2))
    const service = new HistoryService({ store, config, now: () => 60 * DAY, builds })
    expect(await service.sweep()).toBe(2)
    expect(await seqs(store, 'o/a/main')).toEqual([3])
    expect(await seqs(store, 'o/b/main')).toEqual([1, 2])
    expect(await store.readMeta('o/a/main', RECORD_NAME)).not.toBeNull()
    expect(builds.turns).toBe(1) // nothing was due for o/b: no history built
    // a fresh service (a restart) reads the folded history back, with only the retained entry
    const again = new HistoryService({ store, config, now: () => 60 * DAY, builds })
    const { answer, head } = await again.run('o/a/main', () => ({
      kind: 'activity',
      query: { from: 0, to: 100 * DAY, by: null, limit: 10, order: 'asc', group: false, groupMaxGap: 0 },
      delta: true,
    }))
    expect(head).toEqual({ base: { seq: 2, at: 2 * DAY }, lastSeq: 3 })
    expect(answer.entries).toEqual([
      { from: 50 * DAY, to: 50 * DAY, by: 'ann', inserted: 1, deleted: 0, delta: [{ insert: 'x' }] },
    ])
  })

  it('a history waits for a turn of the process builds, its log counted while it waits and its build while it runs, and answers as before', async () => {
    const store = new MemoryDocStore()
    await typed(store, 'o/d/main', [1, 2, 3], 'ab')
    const builds = new DocBuilds(1)
    // a worker thread for every job, so the build is seen in progress
    const service = new HistoryService({ store, config, now: () => 5 * DAY, builds, inLoopMaxBytes: 0 })
    const release = await holdTurn(builds)
    const waiting = changesetOf(service, 'o/d/main')
    expect(await settled(waiting)).toBe(false)
    expect(builds.bytesInUse).toBe(0) // queued: nothing built
    expect(builds.bytesWaiting).toBeGreaterThan(0) // but its packed log is held, and counted once
    release()
    let counted = 0
    while (!(await settled(waiting))) counted = Math.max(counted, builds.bytesInUse)
    expect(counted).toBeGreaterThan(0)
    expect(builds.bytesInUse).toBe(0)
    expect(builds.bytesWaiting).toBe(0)
    const { answer } = await waiting
    expect(answer).toMatchObject({ inserted: 6, deleted: 0, by: ['ann'] })
    const roots = JSON.parse(answer.rootsJson!) as Record<string, { delta: { insert: string }[] }>
    expect(roots.t!.delta.map((run) => run.insert).join('')).toBe('ababab')
    const atTo = new Y.Doc()
    Y.applyUpdate(atTo, answer.ydoc!)
    expect(atTo.getText('t').toString()).toBe('ababab')
    // the same answer from the event loop
    const inLoop = new HistoryService({ store, config, now: () => 5 * DAY, builds })
    expect((await changesetOf(inLoop, 'o/d/main')).answer).toEqual(answer)
  })

  it('a rollback waits its turn, and applies its update after the turn is given back', async () => {
    const store = new MemoryDocStore()
    const updates = await typed(store, 'o/r/main', [1, 2, 3])
    const builds = new DocBuilds(1)
    const service = new HistoryService({ store, config, now: () => 5 * DAY, builds })
    const release = await holdTurn(builds)
    let computed = false
    let applied: Uint8Array | null = null
    const rollback = service.run(
      'o/r/main',
      () => ({ kind: 'rollback', target: { kind: 'to', to: 1 * DAY }, unless: null }),
      // a room's apply may itself need a turn (compaction): it must never wait on the rollback's own
      async (r) => {
        computed = true
        applied = await builds.bounded(1, async () => r.update)
      },
    )
    expect(await settled(rollback)).toBe(false)
    expect(computed).toBe(false)
    release()
    const { answer } = await rollback
    expect(answer).toMatchObject({ removed: 2, restored: 0 })
    const doc = new Y.Doc()
    for (const u of [...updates, applied!]) Y.applyUpdate(doc, u)
    expect(doc.getText('t').toString()).toBe('x')
    expect(builds.bytesInUse).toBe(0)
  })
})
