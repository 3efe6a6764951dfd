// Content bases across cluster nodes (real PostgreSQL and redis-server): a base node A gave out is
// accepted by node B and merges there, since the key that tags bases lives beside the document in
// PostgreSQL, not in a node; another document's base is refused on either node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/auth/capability.js'
import { startClusterNodes, type ClusterNodes } from '../helpers/cluster-nodes.js'
import type { Harness } from '../helpers/tandem.js'

let cluster: ClusterNodes
let a: Harness
let b: Harness

beforeAll(async () => {
  cluster = await startClusterNodes(2, 'tandem_content_base')
  ;[a, b] = cluster.nodes as [Harness, Harness]
}, 60_000)

afterAll(() => cluster?.close())

type Json = Record<string, any>

async function call(
  node: Harness,
  method: string,
  doc: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const { token } = await mintToken(node.server.deps.keys, { org: 'acme', doc, sub: 'agent', acc: 'rw', ttlSec: 600 })
  const res = await fetch(`${node.httpUrl}/content/v1/acme/${doc}?yauth=${token}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

describe('content bases across cluster nodes', () => {
  it('a base node A gave out merges on node B; a base of another document is refused on both', async () => {
    // first reads of a new document on both nodes at once: one key wins, both answer bases under it
    const [fromA, fromB] = await Promise.all([call(a, 'GET', 'shared'), call(b, 'GET', 'shared')])
    expect(fromA.body.base).toBe(fromB.body.base)
    expect(
      (await call(a, 'PATCH', 'shared', { format: 'markdown', content: 'One.\n\nTwo.\n', base: fromA.body.base }))
        .status,
    ).toBe(200)
    const read = await call(a, 'GET', 'shared')
    expect(
      (await call(a, 'PATCH', 'shared', { format: 'markdown', content: 'One.\n\nTwo.\n\nThree, on A.\n' })).status,
    ).toBe(200)
    const onB = await call(b, 'PATCH', 'shared', {
      format: 'markdown',
      content: 'One, on B.\n\nTwo.\n',
      base: read.body.base,
    })
    expect(onB.status).toBe(200)
    expect((await call(a, 'GET', 'shared')).body.content).toBe('One, on B.\n\nTwo.\n\nThree, on A.\n')
    // and B's answer works on A
    expect(
      (
        await call(a, 'PATCH', 'shared', {
          format: 'markdown',
          content: 'One, on B.\n\nTwo, on A.\n',
          base: onB.body.base,
        })
      ).status,
    ).toBe(200)

    await call(b, 'PATCH', 'other', { format: 'markdown', content: 'Other.\n' })
    const foreign = (await call(b, 'GET', 'other')).body.base
    for (const node of [a, b])
      expect(
        (await call(node, 'PATCH', 'shared', { format: 'markdown', content: 'Gone.\n', base: foreign })).status,
      ).toBe(400)
    expect((await call(b, 'GET', 'shared')).body.content).toBe('One, on B.\n\nTwo, on A.\n\nThree, on A.\n')
  }, 60_000)
})
