// Every Redis key and channel the cluster uses, in one place. One Redis serves one cluster; the
// prefix keeps Tandem's keys apart from anything else stored there.
const PREFIX = 'tandem:'

export const keys = {
  /** pub/sub channel one node reads: other nodes' updates and awareness of the documents it follows */
  inbox: (nodeId: string) => `${PREFIX}inbox:${nodeId}`,
  /** set of the nodes that follow one document (src/cluster/followers.ts) */
  followers: (docId: string) => `${PREFIX}followers:${docId}`,
  /** pub/sub channel of control-plane changes ("<node>\n<prefix>"; control-notices.ts) */
  controlChannel: `${PREFIX}control`,
  /** set of the documents one node follows (so a lapsed node's registrations can be removed) */
  follows: (nodeId: string) => `${PREFIX}follows:${nodeId}`,
  /** heartbeat of one node (value: its description, TTL: heartbeat TTL) */
  node: (nodeId: string) => `${PREFIX}node:${nodeId}`,
  /** set of node ids ever registered and not yet reaped */
  nodes: `${PREFIX}nodes`,
  lease: (name: string) => `${PREFIX}lease:${name}`,
  /** Redis server time (ms) of the last completed run of a cluster-wide job */
  lastRun: (name: string) => `${PREFIX}lastrun:${name}`,
} as const
