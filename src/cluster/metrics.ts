// Cluster metrics, registered on the server's Prometheus registry (one per server instance).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'

export function createClusterMetrics(registry: Registry) {
  const registers = [registry]
  return {
    busMessages: new Counter({
      name: 'tandem_bus_messages_total',
      help: 'document bus messages by direction (in: from another node, out: to another node) and type (update, awareness, awareness-query)',
      labelNames: ['direction', 'type'] as const,
      registers,
    }),
    busReceived: new Counter({
      name: 'tandem_bus_received_total',
      help: "messages read from this node's inbox (every one, decodable or not)",
      registers,
    }),
    busUnsent: new Counter({
      name: 'tandem_bus_unsent_total',
      help: 'committed document messages not sent at all: the last publish found no other follower (no Redis call for them)',
      registers,
    }),
    busGaps: new Counter({
      name: 'tandem_bus_gaps_total',
      help: "holes in a followed document's seqs still open after the grace period",
      registers,
    }),
    busResyncs: new Counter({
      name: 'tandem_bus_resyncs_total',
      help: 'followed documents resynced from storage, by reason (follow, gap, reconnect, node_lapse, retry, join)',
      labelNames: ['reason'] as const,
      registers,
    }),
    busResyncFailures: new Counter({
      name: 'tandem_bus_resync_failures_total',
      help: 'resyncs that failed and will be retried',
      registers,
    }),
    busPublishSeconds: new Histogram({
      name: 'tandem_bus_publish_seconds',
      help: 'time from handing a write cycle to the bus until Redis accepted every message of it',
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
    busConnected: new Gauge({
      name: 'tandem_bus_connected',
      help: '1 while both bus connections to Redis are ready',
      registers,
    }),
    leaseHeld: new Gauge({ name: 'tandem_leases_held', help: 'cluster leases this node holds', registers }),
    nodesLive: new Gauge({
      name: 'tandem_cluster_nodes_live',
      help: 'nodes with a live heartbeat, this one included',
      registers,
    }),
  }
}

export type ClusterMetrics = ReturnType<typeof createClusterMetrics>
