// One process as a node of a cluster: the document bus, leases for once-per-cluster work and the
// node's heartbeat, over two Redis connections (commands and subscriptions). This is what the
// server starts when --redis-url is set, and what it stops last when it drains.
import type { Registry } from 'prom-client'
import type { Logger } from '../infra/log.js'
import { DocBus } from './bus.js'
import { ControlNotices } from './control-notices.js'
import { Leases } from './leases.js'
import { createClusterMetrics, type ClusterMetrics } from './metrics.js'
import { NodeMembership, newNodeId } from './nodes.js'
import { connectRedis } from './redis.js'

export interface ClusterNodeOptions {
  /** --redis-url: a secret, never logged */
  redisUrl: string
  log: Logger
  /** the server's Prometheus registry */
  registry?: Registry
  nodeId?: string
  connectTimeoutMs?: number
  heartbeatTtlMs?: number
  heartbeatEveryMs?: number
  pollMs?: number
  gapGraceMs?: number
}

export class ClusterNode {
  private closing: Promise<void> | null = null

  private constructor(
    readonly id: string,
    readonly bus: DocBus,
    readonly leases: Leases,
    readonly membership: NodeMembership,
    /** control-plane changes announced to the other nodes at once */
    readonly notices: ControlNotices,
    readonly metrics: ClusterMetrics | undefined,
    /** called by the membership's lapse callback, filled through onNodeLapse() */
    private readonly lapseListeners: Array<(nodeId: string) => void>,
  ) {}

  /** Connects (a clear error naming redis-url if Redis is unreachable), registers the heartbeat. */
  static async start(o: ClusterNodeOptions): Promise<ClusterNode> {
    const id = o.nodeId ?? newNodeId()
    const metrics = o.registry ? createClusterMetrics(o.registry) : undefined
    const log = o.log.child({ node: id })
    // No PING on the command connection: the heartbeat is a command every few seconds already.
    const pub = await connectRedis({
      url: o.redisUrl,
      name: `tandem-${id}`,
      connectTimeoutMs: o.connectTimeoutMs,
      disableOfflineQueue: true,
      pingIntervalMs: 0,
    })
    let sub
    try {
      sub = await connectRedis({ url: o.redisUrl, name: `tandem-sub-${id}`, connectTimeoutMs: o.connectTimeoutMs })
    } catch (err) {
      pub.destroy()
      throw err
    }
    const bus = await DocBus.attach(pub, sub, { nodeId: id, log, metrics, gapGraceMs: o.gapGraceMs })
    let notices: ControlNotices
    try {
      notices = await ControlNotices.start(pub, sub, id, log)
    } catch (err) {
      await bus.close()
      throw err
    }
    const leases = new Leases(pub, { nodeId: id, log, metrics })
    const lapseListeners: Array<(nodeId: string) => void> = []
    let membership: NodeMembership
    try {
      membership = await NodeMembership.start(pub, {
        nodeId: id,
        log,
        metrics,
        ttlMs: o.heartbeatTtlMs,
        everyMs: o.heartbeatEveryMs,
        pollMs: o.pollMs,
        onLapse: (node) => {
          // Its registrations go; its last cycle may be committed but unannounced: every followed
          // document's tail is read.
          bus.nodeLapsed(node)
          for (const listener of lapseListeners) listener(node)
        },
        // Others may have removed our registrations meanwhile: make them again and catch up.
        onRevived: () => bus.rejoinAll(),
      })
    } catch (err) {
      await bus.close()
      throw err
    }
    log.info('cluster node started')
    return new ClusterNode(id, bus, leases, membership, notices, metrics, lapseListeners)
  }

  /** Another node's heartbeat lapsed: e.g. remove its clients' awareness (the bus resyncs by itself). */
  onNodeLapse(listener: (nodeId: string) => void): void {
    this.lapseListeners.push(listener)
  }

  /** Redis reachable on both connections: /readyz answers 503 otherwise. */
  get ready(): boolean {
    return this.bus.ready
  }

  /**
   * Last step of a drain, after the final write cycle was published: deregisters (others drop
   * this node's awareness at their next poll), releases leases (others take the work at once),
   * closes the bus. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.notices.close()
      await this.membership.stop()
      await this.leases.close()
      await this.bus.close()
    })()
    return this.closing
  }
}
