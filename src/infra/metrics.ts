// Prometheus metrics, one registry per server instance (tests run several servers in one process).
// prom-client's parts are imported one by one and its process/Node.js default metrics on first
// use: the whole package (Pushgateway with http/https/zlib, @opentelemetry/api for the CPU
// counter, event-loop and GC observers) cost ~40 ms of CPU before a start accepted a socket.
import Counter from 'prom-client/lib/counter.js'
import Gauge from 'prom-client/lib/gauge.js'
import Histogram from 'prom-client/lib/histogram.js'
import Registry from 'prom-client/lib/registry.js'

// prom-client samples event-loop delay with a libuv timer at this resolution; its default, 10 ms,
// woke an idle process 100 times a second (about 3 of an idle node's 9-17 ms of CPU a second). The
// histogram still sees every stall longer than this.
const EVENT_LOOP_RESOLUTION_MS = 250

const PROM_KINDS: MetricKinds = { Counter, Gauge, Histogram }

/** What the memory metrics read at each scrape; the room registry fills it in. */
interface MemorySource {
  /** bytes the memory budget counts now */
  used(): number
  /** bytes each loaded room holds */
  roomBytes(): number[]
}

/** The classes every metric is built from: prom-client's, or subclasses keeping their names and help. */
export interface MetricKinds {
  Counter: typeof Counter
  Gauge: typeof Gauge
  Histogram: typeof Histogram
}

interface MetricsOptions {
  /** default prom-client's own, chosen once here so the recording path checks nothing */
  kinds?: MetricKinds
  /** false: the process/Node.js default metrics are never collected (default true) */
  defaults?: boolean
}

export function createMetrics(o: MetricsOptions = {}) {
  const withProcessMetrics = o.defaults ?? true
  const { Counter, Gauge, Histogram } = o.kinds ?? PROM_KINDS
  const registry = new Registry()
  const memory: MemorySource = { used: () => 0, roomBytes: () => [] }
  let defaults: Promise<void> | undefined
  const m = {
    registry,
    /**
     * Registers the default metrics once (the server does it right after the collab listener is
     * up); a scrape awaits it, so no exposition ever lacks them.
     */
    withDefaults(): Promise<void> {
      if (!withProcessMetrics) return Promise.resolve()
      defaults ??= import('prom-client/lib/defaultMetrics.js').then(({ default: collectDefaultMetrics }) => {
        collectDefaultMetrics({
          register: registry,
          prefix: 'tandem_',
          eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS,
        })
      })
      return defaults
    },
    connections: new Gauge({
      name: 'tandem_ws_connections',
      help: 'open WebSocket connections by protocol (y-websocket, hocuspocus)',
      labelNames: ['protocol'] as const,
      registers: [registry],
    }),
    rooms: new Gauge({ name: 'tandem_rooms_loaded', help: 'rooms loaded in memory', registers: [registry] }),
    messagesIn: new Counter({
      name: 'tandem_ws_messages_in_total',
      help: 'WebSocket messages received',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    bytesIn: new Counter({ name: 'tandem_ws_bytes_in_total', help: 'WebSocket bytes received', registers: [registry] }),
    messagesOut: new Counter({
      name: 'tandem_ws_messages_out_total',
      help: 'WebSocket messages sent',
      registers: [registry],
    }),
    bytesOut: new Counter({ name: 'tandem_ws_bytes_out_total', help: 'WebSocket bytes sent', registers: [registry] }),
    rateLimited: new Counter({
      name: 'tandem_rate_limited_total',
      help: 'requests, upgrades and sockets refused by a rate limit, by listener and limit',
      labelNames: ['listener', 'limit'] as const,
      registers: [registry],
    }),
    closes: new Counter({
      name: 'tandem_ws_closes_total',
      help: 'WebSocket closes by code',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    updatesUnchanged: new Counter({
      name: 'tandem_updates_unchanged_total',
      help: 'updates that changed nothing (already known, empty): neither stored nor broadcast',
      registers: [registry],
    }),
    updateLatency: new Histogram({
      name: 'tandem_update_apply_seconds',
      help: 'time from receiving an update to broadcasting it',
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5],
      registers: [registry],
    }),
    persistLatency: new Histogram({
      name: 'tandem_persist_seconds',
      help: 'time to write a batch of updates to storage',
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    storageWriteFailures: new Counter({
      name: 'tandem_storage_write_failures_total',
      help: 'document storage writes that failed (retried while updates are held)',
      labelNames: ['op'] as const,
      registers: [registry],
    }),
    storageHealthy: new Gauge({
      name: 'tandem_storage_healthy',
      help: '1 while document storage takes writes, 0 after a failed write until one succeeds',
      registers: [registry],
    }),
    httpRequests: new Counter({
      name: 'tandem_http_requests_total',
      help: 'HTTP requests by listener, route and status',
      labelNames: ['listener', 'route', 'method', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'tandem_http_request_seconds',
      help: 'HTTP request duration by listener and route',
      labelNames: ['listener', 'route'] as const,
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    }),
    authRefusals: new Counter({
      name: 'tandem_auth_refusals_total',
      help: 'capability tokens refused (invalid, expired, revoked), made read-only, or upgrades refused for their Origin; by where (upgrade, rest, refresh, live)',
      labelNames: ['where', 'reason'] as const,
      registers: [registry],
    }),
    revocations: new Gauge({
      name: 'tandem_token_revocations',
      help: 'records in the token deny-list held in memory',
      registers: [registry],
    }),
    memory,
    memoryUsed: new Gauge({
      name: 'tandem_memory_budget_used_bytes',
      help: 'bytes counted against --memory-budget-mb: loaded documents, held updates, unwritten updates, cached sync frames, transient Y.Docs',
      registers: [registry],
      collect() {
        this.set(memory.used())
      },
    }),
    roomBytes: new Histogram({
      name: 'tandem_room_bytes',
      help: 'bytes each loaded room holds (sampled at scrape)',
      buckets: [1024, 16 * 1024, 128 * 1024, 1024 * 1024, 8 * 1024 * 1024, 64 * 1024 * 1024, 256 * 1024 * 1024],
      registers: [registry],
      collect() {
        this.reset()
        for (const b of memory.roomBytes()) this.observe(b)
      },
    }),
    roomEvictions: new Counter({
      name: 'tandem_room_evictions_total',
      help: 'idle rooms unloaded early to stay inside the memory budget',
      registers: [registry],
    }),
    capacityRefusals: new Counter({
      name: 'tandem_capacity_refusals_total',
      help: 'first joins and REST calls refused because the memory budget was spent (1013 / 503)',
      registers: [registry],
    }),
  }
  m.storageHealthy.set(1)
  return m
}

export type Metrics = ReturnType<typeof createMetrics>
