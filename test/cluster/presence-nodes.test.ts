// Presence across two real Tandem nodes (one PostgreSQL, one redis-server): a burst of cursor moves
// on one node reaches the other node's y-websocket and Hocuspocus providers as its latest state,
// in fewer bus messages than moves (one per window per room), and a leave on one node reaches the
// other. An agent writing through one node is seen, with its caret, on the other, and its stream
// written through one node grows in a person's editor on the other as it arrives.
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { authenticated, hocusClients } from '../helpers/hocuspocus.js'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import { eventually, synced, type Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let nodes: Harness[] = []

beforeAll(async () => {
  cluster = await startClusterNodes(2, 'tandem_presence_nodes')
  nodes = cluster.nodes
}, 60_000)

afterAll(() => cluster?.close())

async function busAwarenessOut(node: Harness): Promise<number> {
  const text = await (await fetch(`${node.httpUrl}/metrics`)).text()
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('tandem_bus_messages_total{') && l.includes('direction="out"') && l.includes('type="awareness"'),
    )
  return line ? Number(line.split(' ').at(-1)) : 0
}

/** A person on node `b` synced to `doc`, and an agent's token minted by node `a`. */
async function personAndAgent(a: Harness, b: Harness, doc: string, session?: { id: string; name: string }) {
  const person = b.provider('acme', doc, await b.token('acme', doc, { sub: 'bob' }))
  await synced(person)
  const { token } = await mintToken(a.server.deps.keys, {
    org: 'acme',
    doc,
    sub: 'bot',
    acc: 'rw',
    agent: true,
    ...(session ? { session } : {}),
    ttlSec: 600,
  })
  return { person, token }
}

describe('presence across cluster nodes', () => {
  it('a burst on one node reaches both protocols on the other as its latest state, in fewer bus messages than moves; a leave crosses too', async () => {
    const [a, b] = nodes as [Harness, Harness]
    const doc = 'presence-nodes'
    const ann = a.provider('acme', doc, await a.token('acme', doc, { sub: 'ann' }))
    ann.awareness.setLocalStateField('user', { name: 'ann' })
    const bob = b.provider('acme', doc, await b.token('acme', doc, { sub: 'bob' }))
    const c = hocusClients()
    try {
      const hp = c.provider(c.socket(b.wsUrl), `acme/${doc}`, await b.token('acme', doc, { sub: 'hana' }))
      await Promise.all([synced(ann), synced(bob), authenticated(hp)])
      const annId = ann.awareness.clientID
      await eventually(
        () =>
          expect([bob.awareness.getStates().has(annId), hp.awareness!.getStates().has(annId)]).toEqual([true, true]),
        20_000,
      )

      const before = await busAwarenessOut(a)
      for (let i = 1; i <= 100; i++) ann.awareness.setLocalStateField('cursor', i)
      await eventually(() => {
        expect(bob.awareness.getStates().get(annId)?.cursor).toBe(100)
        expect(hp.awareness!.getStates().get(annId)?.cursor).toBe(100)
      }, 20_000)
      expect((await busAwarenessOut(a)) - before).toBeLessThan(100)

      ann.destroy()
      await eventually(() => {
        expect(bob.awareness.getStates().has(annId)).toBe(false)
        expect(hp.awareness!.getStates().has(annId)).toBe(false)
      }, 20_000)
    } finally {
      c.destroy()
    }
  }, 60_000)
})

describe('an agent across cluster nodes', () => {
  it('writing through one node, it is seen with its caret by a person on the other, and leaves there too', async () => {
    const [a, b] = nodes as [Harness, Harness]
    const doc = 'agent-nodes'
    const { person, token } = await personAndAgent(a, b, doc, { id: 'nodes', name: 'Node bot' })
    const call = (path: string, method: string, body?: unknown) =>
      fetch(`${a.httpUrl}/${path}/v1/acme/${doc}?yauth=${token}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      })
    expect((await call('content', 'PATCH', { format: 'markdown', content: 'Written on node A.\n' })).status).toBe(200)
    const agents = () =>
      [...person.awareness.getStates().values()].filter(
        (s) => (s as { user?: { kind?: string } }).user?.kind === 'agent',
      )
    await eventually(() => {
      const [s] = agents() as [{ user: { name: string }; cursor: { head: object } }]
      expect(s.user.name).toBe('Node bot')
      const head = Y.createAbsolutePositionFromRelativePosition(
        Y.createRelativePositionFromJSON(s.cursor.head),
        person.doc,
      )!
      expect((head.type as Y.XmlText).toString().slice(0, head.index)).toBe('Written on node A.')
    }, 20_000)
    expect((await call('presence', 'DELETE')).status).toBe(204)
    await eventually(() => expect(agents()).toEqual([]), 20_000)
  })
})

describe('a stream across cluster nodes', () => {
  it('a stream in one request through one node grows in the editor of a person on the other, which reads what it wrote', async () => {
    const [a, b] = nodes as [Harness, Harness]
    const doc = 'stream-nodes'
    const { person, token } = await personAndAgent(a, b, doc)
    const req = http.request(`${a.httpUrl}/stream/v1/acme/${doc}?at=end&yauth=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
    })
    const answer = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => (res.resume(), res.on('end', () => resolve(res.statusCode!))))
      req.on('error', reject)
    })
    const line = (text: string) => new Promise<void>((r) => req.write(`${JSON.stringify({ text })}\n`, () => r()))
    const text = () => person.doc.getXmlFragment('default').toString()
    await line('## From node A\n\nThe first para')
    await eventually(() => expect(text()).toContain('The first para'), 20_000)
    expect(text()).not.toContain('##')
    await line('graph.\n\n- one\n- two')
    req.end()
    expect(await answer).toBe(200)
    const t = await b.token('acme', doc)
    await eventually(async () => {
      const read = (await (await fetch(`${b.httpUrl}/content/v1/acme/${doc}?yauth=${t}`)).json()) as { content: string }
      expect(read.content).toBe('## From node A\n\nThe first paragraph.\n\n- one\n- two\n')
    }, 20_000)
  })
})
