import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { content, edit, prng } from '../helpers/random-edits.js'
import { scanUpdate } from '@tandem/protocol/update-scan'
import { splitUpdate } from '@tandem/protocol/update-split'

/** The update's structs but Skips, as Yjs decodes them: id, length, kind and content. */
function structsOf(update: Uint8Array | null): string[] {
  if (!update) return []
  return Y.decodeUpdate(update)
    .structs.filter((s) => s.constructor.name !== 'Skip')
    .map((s) => {
      const item = s as Y.Item
      return `${s.id.client}:${s.id.clock}+${s.length} ${s.constructor.name} ${item.content ? JSON.stringify(item.content.getContent()) : ''}`
    })
    .sort()
}

const deletesOf = (update: Uint8Array | null) =>
  update ? JSON.stringify([...Y.decodeUpdate(update).ds.clients]) : '[]'

describe('splitUpdate', () => {
  it('cuts random multi-client updates (merged, with gaps and deletions) into the structs below and above each cut, losing and adding nothing', () => {
    const rand = prng(44)
    const docs = [1, 2, 3].map((id) => {
      const d = new Y.Doc()
      d.clientID = id
      return d
    })
    const wire: Uint8Array[] = []
    for (const d of docs) d.on('update', (u: Uint8Array) => wire.push(u))
    for (let round = 0; round < 200; round++) {
      const d = docs[Math.floor(rand() * docs.length)]!
      edit(d, rand)
      if (rand() < 0.2) {
        const other = docs[Math.floor(rand() * docs.length)]!
        Y.applyUpdate(d, Y.encodeStateAsUpdate(other, Y.encodeStateVector(d)))
      }
      // a random selection of what was sent, merged: gaps become Skips
      const picked = wire.filter(() => rand() < 0.3)
      if (picked.length === 0) continue
      const update = Y.mergeUpdates(picked)
      const cuts = new Map(docs.map((x) => [x.clientID, Math.floor(rand() * (Y.getState(x.store, x.clientID) + 2))]))
      const { below, above } = splitUpdate(update, (c) => cuts.get(c) ?? 0)

      expect([...structsOf(below), ...structsOf(above)].sort()).toEqual(structsOf(update))
      expect(deletesOf(below)).toEqual(deletesOf(update))
      if (above) expect(Y.decodeUpdate(above).ds.clients.size).toBe(0)
      for (const s of Y.decodeUpdate(below ?? Uint8Array.of(0, 0)).structs)
        expect(s.id.clock).toBeLessThan(cuts.get(s.id.client)!)
      for (const s of Y.decodeUpdate(above ?? Uint8Array.of(0, 0)).structs)
        expect(s.id.clock + s.length).toBeGreaterThan(cuts.get(s.id.client)!)
      // both parts are well-formed updates, and together they build what the update builds
      if (below) scanUpdate(below)
      if (above) scanUpdate(above)
      const whole = new Y.Doc()
      Y.applyUpdate(whole, update)
      const parts = new Y.Doc()
      if (below) Y.applyUpdate(parts, below)
      if (above) Y.applyUpdate(parts, above)
      expect(content(parts)).toEqual(content(whole))
      expect(Y.encodeStateVector(parts)).toEqual(Y.encodeStateVector(whole))
    }
  })

  it('gives no lower part for an update wholly above its cuts without deletions, and no upper part for one wholly below', () => {
    const d = new Y.Doc()
    d.clientID = 5
    d.getText('t').insert(0, 'abc')
    const u = Y.encodeStateAsUpdate(d)
    expect(splitUpdate(u, () => 0).below).toBeNull()
    expect(splitUpdate(u, () => 3).above).toBeNull()
    expect(splitUpdate(u, () => 3).below).toEqual(u)
  })
})
