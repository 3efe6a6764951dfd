// Every Redis key and channel the cluster uses, in one place. One Redis serves one cluster; the
// prefix keeps Tandem's keys apart from anything else stored there.
const PREFIX = 'tandem:'

export const keys = {
  /** pub/sub channel of one document: updates and awareness */
  docChannel: (docId: string) => `${PREFIX}doc:${docId}`,
  /** heartbeat of one node (value: its description, TTL: heartbeat TTL) */
  node: (nodeId: string) => `${PREFIX}node:${nodeId}`,
  /** set of node ids ever registered and not yet reaped */
  nodes: `${PREFIX}nodes`,
  lease: (name: string) => `${PREFIX}lease:${name}`,
  /** Redis server time (ms) of the last completed run of a cluster-wide job */
  lastRun: (name: string) => `${PREFIX}lastrun:${name}`,
} as const
