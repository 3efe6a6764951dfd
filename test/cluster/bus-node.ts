// A minimal cluster node for bus tests, built from the real parts the room will use: Y.Docs, a
// DocStore shared by every node (the memory twin standing in for PostgreSQL: one store, as one
// database), a DocBus on a real Redis, readMissed for resyncs. Commits follow the cluster write
// path: apply locally, append under the document's head lock (the store assigns seqs), publish.
import { pino } from 'pino'
import { Registry } from 'prom-client'
import * as Y from 'yjs'
import { DocBus, type ResyncReason } from '../../src/cluster/bus.js'
import type { UpdateMessage } from '../../src/cluster/codec.js'
import { createClusterMetrics, type ClusterMetrics } from '../../src/cluster/metrics.js'
import { readMissed } from '../../src/cluster/resync.js'
import type { DocStore } from '../../src/storage/doc-store.js'

/** Per-document head locks shared by every node: what PostgreSQL's head row lock does. */
export class HeadLocks {
  private tails = new Map<string, Promise<unknown>>()
  run<T>(docId: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(docId) ?? Promise.resolve()
    const next = prev.then(fn, fn)
    this.tails.set(
      docId,
      next.catch(() => undefined),
    )
    return next
  }
}

export interface TestNode {
  id: string
  bus: DocBus
  metrics: ClusterMetrics
  registry: Registry
  docs: Map<string, Y.Doc>
  received: UpdateMessage[]
  resyncs: { docId: string; from: number; reason: ResyncReason }[]
  awareness: { docId: string; node: string; update: Uint8Array }[]
  queries: { docId: string; node: string }[]
  follow(docId: string): Promise<Y.Doc>
  /** Commits text at the end of the document's 't' and returns the seqs; publishes unless told not to. */
  write(
    docId: string,
    text: string,
    opts?: { publish?: boolean },
  ): Promise<{ fromSeq: number; toSeq: number; published: Promise<void> }>
  text(docId: string): string
  close(): Promise<void>
}

export async function startNode(
  id: string,
  url: string,
  store: DocStore,
  locks: HeadLocks,
  gapGraceMs = 150,
): Promise<TestNode> {
  const registry = new Registry()
  const metrics = createClusterMetrics(registry)
  const log = pino({ level: 'silent' })
  const bus = await DocBus.connect(url, {
    nodeId: id,
    log,
    metrics,
    gapGraceMs,
    resyncRetryMs: 200,
    connectTimeoutMs: 3_000,
  })
  const docs = new Map<string, Y.Doc>()
  const node: TestNode = {
    id,
    bus,
    metrics,
    registry,
    docs,
    received: [],
    resyncs: [],
    awareness: [],
    queries: [],
    async follow(docId) {
      const doc = new Y.Doc()
      docs.set(docId, doc)
      const loaded = await readMissed(store, docId, 1)
      for (const u of loaded.updates) Y.applyUpdate(doc, u)
      await bus.follow(docId, loaded.head, {
        onUpdate: (m) => {
          node.received.push(m)
          Y.applyUpdate(doc, m.update, 'bus')
        },
        onAwareness: (m) => node.awareness.push({ docId, node: m.node, update: m.update }),
        onAwarenessQuery: (from) => node.queries.push({ docId, node: from }),
        resync: async (from, reason) => {
          node.resyncs.push({ docId, from, reason })
          const missed = await readMissed(store, docId, from)
          for (const u of missed.updates) Y.applyUpdate(doc, u, 'storage')
          return missed.head
        },
      })
      return doc
    },
    async write(docId, text, opts = {}) {
      const doc = docs.get(docId)!
      const before = Y.encodeStateVector(doc)
      doc.getText('t').insert(doc.getText('t').length, text)
      const update = Y.encodeStateAsUpdate(doc, before)
      const seq = await locks.run(docId, async () => {
        const head = (await store.load(docId)).lastSeq
        await store.appendMany([{ docId, firstSeq: head + 1, entries: [{ user: id, at: Date.now(), update }] }])
        return head + 1
      })
      const published =
        opts.publish === false ? Promise.resolve() : bus.publish([{ docId, fromSeq: seq, toSeq: seq, update }])
      return { fromSeq: seq, toSeq: seq, published }
    },
    text: (docId) => docs.get(docId)!.getText('t').toString(),
    close: () => bus.close(),
  }
  return node
}

export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name)
  if (!m) return 0
  return (m.values as { value: number; labels: Record<string, string> }[])
    .filter((v) => Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val))
    .reduce((n, v) => n + v.value, 0)
}

export async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
