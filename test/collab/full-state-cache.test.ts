// A room keeps a framed full state (the sync answer for a client that has nothing) only while
// joins use it, plus `sync-cache-ms`, and only for a small document: a large one goes out paced
// from the state the room holds, with no copy. A join after a drop, or after a change, must still
// get the whole, current document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const KEEP_MS = 300

let h: Harness
let forever: Harness
beforeAll(async () => {
  h = await startTandem({ syncCacheMs: KEEP_MS }, { api: false })
  forever = await startTandem({ syncCacheMs: 3_600_000 }, { api: false })
})
afterAll(async () => {
  await h.close()
  await forever.close()
})

/** A writer with a document large enough (~320 KB) that its sync goes out paced. */
async function bigDoc(on: Harness, doc: string): Promise<{ token: string; writer: Y.Doc }> {
  const token = await on.token('acme', doc)
  const writer = new Y.Doc()
  await synced(on.provider('acme', doc, token, writer))
  for (let i = 0; i < 10; i++) writer.getText('t').insert(0, String.fromCharCode(97 + i).repeat(32 * 1024))
  const room = on.server.registry.loaded(`acme/${doc}/main`)!
  await eventually(async () =>
    expect(await room.withDoc((d) => d.getText('t').length)).toBe(writer.getText('t').length),
  )
  return { token, writer }
}

async function join(on: Harness, doc: string, token: string): Promise<Y.Doc> {
  const d = new Y.Doc()
  await synced(on.provider('acme', doc, token, d))
  return d
}

describe('the cached full state', () => {
  it('is dropped sync-cache-ms after the last join, and a later joiner still gets the whole current document', async () => {
    const { token, writer } = await bigDoc(h, 'dropped')
    const room = h.server.registry.loaded('acme/dropped/main')!
    const first = await join(h, 'dropped', token)
    await eventually(() => expect(first.getText('t').length).toBe(writer.getText('t').length))
    await eventually(() => expect(room.holdsFullState).toBe(false), 5_000)

    writer.getMap('m').set('after-drop', 1)
    await eventually(async () => expect(await room.withDoc((d) => d.getMap('m').get('after-drop'))).toBe(1))
    const late = await join(h, 'dropped', token)
    await eventually(() => {
      expect(late.getText('t').length).toBe(writer.getText('t').length)
      expect(late.getMap('m').get('after-drop')).toBe(1)
    })
    expect(Y.encodeStateVector(late)).toEqual(Y.encodeStateVector(writer))
    await eventually(() => expect(room.holdsFullState).toBe(false), 5_000)
  })

  it('joins of a large document share the state the room holds, with no framed copy whatever sync-cache-ms says; a change reaches the next joiner', async () => {
    const { token, writer } = await bigDoc(forever, 'kept')
    const room = forever.server.registry.loaded('acme/kept/main')!
    const first = await join(forever, 'kept', token)
    await eventually(() => expect(first.getText('t').length).toBe(writer.getText('t').length))
    expect(room.holdsFullState).toBe(false) // sent paced from the room's own encoded state
    const second = await join(forever, 'kept', token)
    await eventually(() => expect(Y.encodeStateVector(second)).toEqual(Y.encodeStateVector(writer)))

    writer.getMap('m').set('changed', true)
    await eventually(async () => expect(await room.withDoc((d) => d.getMap('m').get('changed'))).toBe(true))
    expect(room.holdsFullState).toBe(false)
    const third = await join(forever, 'kept', token)
    await eventually(() => {
      expect(third.getMap('m').get('changed')).toBe(true)
      expect(third.getText('t').length).toBe(writer.getText('t').length)
    })
    expect(Y.encodeStateVector(third)).toEqual(Y.encodeStateVector(writer))
  })
})
