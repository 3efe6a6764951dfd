// --fsync: every append (write cycle) and snapshot reaches LevelDB with sync: true, so it is on disk
// (not only in the page cache) before the room broadcasts it; without it, writes are not synced.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { RootDb } from '../../src/infra/data-dir.js'
import { loadConfig } from '../../src/infra/config.js'
import { LevelDocStore } from '../../src/storage/leveldb/store.js'
import { startTandem, synced, eventually, type Harness } from '../helpers/tandem.js'

type Op = { kind: 'batch' | 'put'; sync: boolean }

/** Records the options every write reaches the LevelDB binding with (the real writes still happen). */
function recordWrites(db: RootDb): Op[] {
  const ops: Op[] = []
  const level = db as unknown as Record<string, (...a: unknown[]) => unknown>
  for (const kind of ['batch', 'put'] as const) {
    const original = level[`_${kind}`]!.bind(db)
    level[`_${kind}`] = (...args: unknown[]) => {
      const options = args[kind === 'batch' ? 1 : 2] as { sync?: boolean } | undefined
      ops.push({ kind, sync: options?.sync === true })
      return original(...args)
    }
  }
  return ops
}

let cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn()
})

async function openStore(sync: boolean): Promise<{ store: LevelDocStore; ops: Op[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-fsync-'))
  const db = new Level<string, unknown>(dir) as RootDb
  await db.open()
  const ops = recordWrites(db)
  const store = new LevelDocStore(db, { sync })
  await store.exists('d') // opens the sublevel
  cleanup.push(async () => {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })
  return { store, ops }
}

describe('fsync per write cycle', () => {
  it.each([true, false])('sync %s: appends and snapshots are written with exactly that sync option', async (sync) => {
    const { store, ops } = await openStore(sync)
    await store.append('d', 1, [{ user: 'u', at: 1, update: Uint8Array.of(0, 0) }])
    await store.writeSnapshot('d', { seq: 1, at: 2, state: Uint8Array.of(0, 0) })
    expect(ops).toEqual([
      { kind: 'batch', sync },
      { kind: 'put', sync },
    ])
    expect((await store.load('d')).lastSeq).toBe(1)
  })

  it('is on by default, and a server with it syncs every write cycle before the update is broadcast', async () => {
    expect(loadConfig([], {}).fsync).toBe(true)
    const h: Harness = await startTandem({}, { api: false })
    cleanup.push(() => h.close())
    const ops = recordWrites(h.server.deps.db!)
    const t = await h.token('acme', 'synced')
    const a = new Y.Doc()
    const b = new Y.Doc()
    await synced(h.provider('acme', 'synced', t, a))
    await synced(h.provider('acme', 'synced', t, b))
    a.getText('t').insert(0, 'on disk')
    await eventually(() => expect(b.getText('t').toString()).toBe('on disk'))
    const batches = ops.filter((o) => o.kind === 'batch')
    expect(batches.length).toBeGreaterThan(0)
    expect(batches.every((o) => o.sync)).toBe(true)
  })
})
