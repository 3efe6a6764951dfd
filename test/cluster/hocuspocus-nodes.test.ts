// Hocuspocus providers in a cluster: two real Tandem nodes over one PostgreSQL and one
// redis-server. A Hocuspocus provider on one node and a y-websocket provider on the other edit the
// same room and converge; awareness crosses between the two protocols and nodes; a change the
// Hocuspocus provider counts as saved (unsyncedChanges 0) is in PostgreSQL, read by the other node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { authenticated, hocusClients } from '../helpers/hocuspocus.js'
import { startClusterNodes, storedDoc, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, synced, type Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let nodes: Harness[] = []

beforeAll(async () => {
  cluster = await startClusterNodes(2, 'tandem_hocus_cluster')
  nodes = cluster.nodes
}, 60_000)

afterAll(() => cluster?.close())

describe('Hocuspocus providers across cluster nodes', () => {
  it('a Hocuspocus provider on one node and a y-websocket provider on another converge, with awareness both ways', async () => {
    const [a, b] = nodes as [Harness, Harness]
    const c = hocusClients()
    try {
      const hd = new Y.Doc()
      const hp = c.provider(
        c.socket(a.wsUrl),
        'acme/hp-nodes',
        await a.token('acme', 'hp-nodes', { sub: 'hana@example.com' }),
        hd,
      )
      await authenticated(hp)
      await eventually(() => expect(hp.synced).toBe(true))
      const yd = new Y.Doc()
      const yp = b.provider('acme', 'hp-nodes', await b.token('acme', 'hp-nodes', { sub: 'yuri@example.com' }), yd)
      await synced(yp)

      hd.getText('t').insert(0, 'from hocuspocus on A. ')
      yd.getText('t').insert(0, 'from y-websocket on B. ')
      for (let i = 0; i < 20; i++) (i % 2 ? hd : yd).getMap('m').set(`k${i}`, i)
      await eventually(() => {
        expect(hd.getText('t').toString()).toBe(yd.getText('t').toString())
        expect(hd.getText('t').toString()).toContain('from hocuspocus on A.')
        expect(hd.getText('t').toString()).toContain('from y-websocket on B.')
        expect(hd.getMap('m').size).toBe(20)
        expect(yd.getMap('m').toJSON()).toEqual(hd.getMap('m').toJSON())
      }, 20_000)

      hp.setAwarenessField('user', { name: 'hana' })
      yp.awareness.setLocalStateField('user', { name: 'yuri' })
      await eventually(() => {
        expect([...yp.awareness.getStates().values()].some((s) => s.user?.name === 'hana')).toBe(true)
        expect([...hp.awareness!.getStates().values()].some((s) => s.user?.name === 'yuri')).toBe(true)
      }, 20_000)

      // Saved, as the Hocuspocus provider counts it: durable in PostgreSQL, whichever node reads it.
      hd.getText('t').insert(0, 'saved. ')
      await eventually(() => expect(hp.unsyncedChanges).toBe(0))
      const fromStore = await storedDoc(b, 'acme/hp-nodes/main')
      expect(fromStore.getText('t').toString()).toContain('saved. ')
    } finally {
      c.destroy()
    }
  }, 60_000)
})
