import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Level } from 'level'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RootDb } from '../../infra/data-dir.js'
import { LevelDocStore } from './store.js'

const bytes = (...b: number[]) => Uint8Array.from(b)
const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

describe('the log batch', () => {
  let dir: string
  let db: RootDb
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tandem-logbatch-'))
    db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
    await db.open()
  })
  afterEach(async () => {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })

  const write = (store: LevelDocStore) =>
    store.appendMany([
      {
        docId: 'o/a',
        firstSeq: 1,
        entries: [
          { user: 'u', at: 5, update: bytes(1, 2) },
          { user: 'v', at: 6, update: bytes(3), attrs: { k: 'x' } },
        ],
        marks: [{ key: 'hooks!o/a!1', value: '1' }],
      },
      { docId: 'o/b', firstSeq: 1, entries: [{ user: 'w', at: 7, update: bytes(4) }] },
    ])

  const readBack = async (store: LevelDocStore) => ({
    a: await store.load('o/a'),
    b: await store.load('o/b'),
    marks: await collect(store.readMarks('hooks!')),
  })

  it('writes the same records natively as the public batch does with a write listener attached', async () => {
    const store = new LevelDocStore(db)
    await write(store)
    const native = await readBack(store)

    // a write listener makes the store take abstract-level's public path (the listener must see every put)
    await db.close()
    await rm(dir, { recursive: true, force: true })
    db = new Level<string, unknown>(dir, { valueEncoding: 'json' }) as RootDb
    await db.open()
    const seen: string[] = []
    db.on('write', (ops: { key: string }[]) => seen.push(...ops.map((o) => String(o.key))))
    const publicStore = new LevelDocStore(db)
    await write(publicStore)
    expect(seen).toHaveLength(4)
    expect(await readBack(publicStore)).toEqual(native)
    expect(native.a.updates.map((u) => [u.seq, u.user, u.at, [...u.update], u.attrs])).toEqual([
      [1, 'u', 5, [1, 2], undefined],
      [2, 'v', 6, [3], { k: 'x' }],
    ])
    expect(native.marks).toEqual([{ key: 'hooks!o/a!1', value: '1' }])
  })
})
