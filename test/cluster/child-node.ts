// A cluster node in a child process, for SIGKILL tests: holds a lease (renewing it), heartbeats,
// follows one document and announces one awareness client on it. Prints one JSON line when all of
// that is in place, then runs until killed.
import { pino } from 'pino'
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { DocBus } from '../../src/cluster/bus.js'
import { Leases } from '../../src/cluster/leases.js'
import { NodeMembership } from '../../src/cluster/nodes.js'
import { connectRedis } from '../../src/cluster/redis.js'

const [url, nodeId, lease, leaseTtl, heartbeatTtl, docId] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
]
const log = pino({ level: 'silent' })
const redis = await connectRedis({ url, name: `child-${nodeId}` })
const leases = new Leases(redis, { nodeId, log })
const held = await leases.tryAcquire(lease, Number(leaseTtl))
const membership = await NodeMembership.start(redis, {
  nodeId,
  log,
  ttlMs: Number(heartbeatTtl),
  everyMs: Math.floor(Number(heartbeatTtl) / 5),
  pollMs: 500,
})

const doc = new Y.Doc()
const awareness = new awarenessProtocol.Awareness(doc)
awareness.setLocalState({ user: { name: `client of ${nodeId}` } })
const bus = await DocBus.connect(url, { nodeId, log })
const announce = () => bus.publishAwareness(docId, awarenessProtocol.encodeAwarenessUpdate(awareness, [doc.clientID]))
await bus.follow(docId, 0, {
  onUpdate: () => undefined,
  onAwareness: () => undefined,
  onAwarenessQuery: announce,
  resync: async (from) => from - 1,
})
announce()
process.stdout.write(JSON.stringify({ lease: held !== null, node: membership.nodeId, client: doc.clientID }) + '\n')
setInterval(() => undefined, 1 << 30)
