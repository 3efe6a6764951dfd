// A held update across cluster nodes: the gap is held on node A (its sender is there), a stock
// provider joins on node B (whose room follows the document, or loads it only now), and when the
// gap fills on A the joiner on B has everything, as the providers on A do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { encodeUpdate } from '@tandem/protocol/messages'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { gapPair, hasPending } from '../helpers/gap-updates.js'
import { rawClient, type RawClient } from '../helpers/raw-client.js'
import { eventually, synced, type Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let a: Harness
let b: Harness
const raws: RawClient[] = []

beforeAll(async () => {
  cluster = await startClusterNodes(2, 'tandem_held')
  ;[a, b] = cluster.nodes as [Harness, Harness]
}, 60_000)

afterAll(async () => {
  for (const r of raws) r.ws.close()
  await cluster?.close()
})

async function sender(node: Harness, name: string): Promise<RawClient> {
  const raw = await rawClient(`${node.wsUrl}/acme/${name}?yauth=${await node.token('acme', name)}`)
  raws.push(raw)
  return raw
}

describe('held updates across cluster nodes', () => {
  it('a joiner on the node following the document gets the update held on the node with the gap', async () => {
    const name = 'held-follow'
    const onA = new Y.Doc()
    await synced(a.provider('acme', name, await a.token('acme', name), onA))
    const onB = new Y.Doc()
    await synced(b.provider('acme', name, await b.token('acme', name), onB))
    const { u1, u2 } = gapPair()
    const raw = await sender(a, name)
    raw.send(encodeUpdate(u2))
    await eventually(() => expect(hasPending(onB)).toBe(true)) // B follows it: held there too

    const joiner = new Y.Doc()
    await synced(b.provider('acme', name, await b.token('acme', name), joiner))
    expect(hasPending(joiner)).toBe(true)
    raw.send(encodeUpdate(u1))
    await eventually(() => expect(onA.getText('t').toString()).toBe('first second'))
    await eventually(() => expect(joiner.getText('t').toString()).toBe('first second'), 20_000)
    expect(onB.getText('t').toString()).toBe('first second')
  }, 60_000)

  it('a joiner on a node that loads the document during the gap gets the held update from the log', async () => {
    const name = 'held-load'
    const onA = new Y.Doc()
    await synced(a.provider('acme', name, await a.token('acme', name), onA))
    const { u1, u2 } = gapPair()
    const raw = await sender(a, name)
    raw.send(encodeUpdate(u2))
    await eventually(() => expect(hasPending(onA)).toBe(true)) // committed: in the shared log

    const joiner = new Y.Doc()
    await synced(b.provider('acme', name, await b.token('acme', name), joiner))
    expect(hasPending(joiner)).toBe(true)
    raw.send(encodeUpdate(u1))
    await eventually(() => expect(joiner.getText('t').toString()).toBe('first second'), 20_000)
  }, 60_000)
})
