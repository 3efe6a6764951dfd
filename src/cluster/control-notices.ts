// Control-plane changes every node must know at once (webhook registrations, the token deny-list,
// deleted documents), announced over Redis. Each node caches these records and re-reads them
// periodically; without a notice another node's write was seen only at its next poll (webhooks:
// up to 5 s, when an edit through that node was announced to no one). A notice says only "this
// prefix changed": the receiver re-reads it from the control store, where the write is already
// committed (the notice is sent after the batch). A lost notice costs latency, not correctness:
// the polling stays as the fallback.
import type { HookedControlStore } from '../control/hooked-store.js'
import type { Logger } from '../infra/log.js'
import { keys } from './keys.js'
import { describeRedisError, type RedisClient } from './redis.js'

/** Re-reads one cached prefix (e.g. webhooks.refresh). */
export type Refresh = () => Promise<unknown>

export class ControlNotices {
  private readonly refreshers = new Map<string, Refresh>()
  private closed = false

  /** Subscribes `sub` to the control channel; `pub` sends (both owned by the cluster node). */
  static async start(pub: RedisClient, sub: RedisClient, nodeId: string, log: Logger): Promise<ControlNotices> {
    const n = new ControlNotices(pub, nodeId, log)
    await sub.subscribe(keys.controlChannel, (message: string) => n.receive(message))
    return n
  }

  private constructor(
    private readonly pub: RedisClient,
    private readonly nodeId: string,
    private readonly log: Logger,
  ) {}

  /**
   * Relays the store's changes: after every batch of this process that touches a prefix in
   * `refreshers`, the other nodes hear of it and call their refresher for it.
   */
  relay(store: HookedControlStore, refreshers: Record<string, Refresh>): void {
    for (const [prefix, fn] of Object.entries(refreshers)) this.refreshers.set(prefix, fn)
    const prefixes = Object.keys(refreshers)
    store.addHook({
      after: async (ops) => {
        for (const prefix of prefixes) if (ops.some((op) => op.key.startsWith(prefix))) this.announce(prefix)
      },
    })
  }

  private announce(prefix: string): void {
    if (this.closed || !this.pub.isReady) return // the others' polling catches up
    this.pub.publish(keys.controlChannel, `${this.nodeId}\n${prefix}`).catch((err: unknown) => {
      this.log.warn(
        { err: describeRedisError(err), prefix },
        'control change not announced; other nodes see it at their next poll',
      )
    })
  }

  private receive(message: string): void {
    const nl = message.indexOf('\n')
    if (this.closed || nl < 0 || message.slice(0, nl) === this.nodeId) return // our own: refreshed already
    const prefix = message.slice(nl + 1)
    this.refreshers
      .get(prefix)?.()
      .catch((err: unknown) =>
        this.log.warn({ err, prefix }, 'refresh after a control change failed; the next poll retries'),
      )
  }

  close(): void {
    this.closed = true
  }
}
