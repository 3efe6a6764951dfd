import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

describe.each(BACKENDS)('y-websocket providers on one document ($name)', (backend) => {
  let h: Harness
  beforeEach(async () => {
    h = await startTandem(await backend.overrides(), { api: false })
  })
  afterEach(async () => h.close())

  it('three providers converge on text and map edits', async () => {
    const t = await h.token('acme', 'converge')
    const docs = [new Y.Doc(), new Y.Doc(), new Y.Doc()]
    const ps = docs.map((d) => h.provider('acme', 'converge', t, d))
    await Promise.all(ps.map(synced))
    docs[0]!.getText('t').insert(0, 'hello')
    docs[1]!.getMap('m').set('k', 1)
    docs[2]!.getText('t').insert(0, '>> ')
    await eventually(() => {
      for (const d of docs) {
        expect(d.getText('t').toString()).toHaveLength(8)
        expect(d.getMap('m').get('k')).toBe(1)
      }
      expect(docs[0]!.getText('t').toString()).toBe(docs[1]!.getText('t').toString())
      expect(docs[1]!.getText('t').toString()).toBe(docs[2]!.getText('t').toString())
    })
  })

  it('a late joiner receives the existing content', async () => {
    const t = await h.token('acme', 'late')
    const a = new Y.Doc()
    const pa = h.provider('acme', 'late', t, a)
    await synced(pa)
    a.getText('t').insert(0, 'existing')
    const b = new Y.Doc()
    await synced(h.provider('acme', 'late', t, b))
    await eventually(() => expect(b.getText('t').toString()).toBe('existing'))
  })

  it('awareness appears for others and disappears when its owner disconnects', async () => {
    const t = await h.token('acme', 'aware')
    const pa = h.provider('acme', 'aware', t)
    const pb = h.provider('acme', 'aware', t)
    await Promise.all([synced(pa), synced(pb)])
    pa.awareness.setLocalStateField('user', { name: 'Ann' })
    const aId = pa.awareness.clientID
    await eventually(() => expect(pb.awareness.getStates().get(aId)).toEqual({ user: { name: 'Ann' } }))
    pa.destroy()
    await eventually(() => expect(pb.awareness.getStates().has(aId)).toBe(false))
  })
})
