// This node's follower registrations made again (DocBus.rejoinAll): after a reconnect to Redis,
// which may have restarted without them, or when this node's heartbeat had lapsed and the others
// may have removed them. Every followed document (and only those) is registered and its join
// announced, then each resyncs and re-announces its clients' awareness. One run at a time, one
// more if asked meanwhile; retried while Redis refuses; waits for both connections.
import type { Logger } from '../infra/log.js'
import type { BusPublisher } from './bus-publish.js'
import type { FollowedDoc } from './followed-doc.js'
import { rejoin, unregister } from './followers.js'
import { describeRedisError, type RedisClient } from './redis.js'

export interface RejoinHost {
  pub: RedisClient
  nodeId: string
  log: Logger
  followed: ReadonlyMap<string, FollowedDoc>
  send: BusPublisher
  /** ms before a refused rejoin is tried again */
  retryMs: number
  closed(): boolean
  /** both connections are up */
  ready(): boolean
}

export class Rejoiner {
  private wanted = false
  private running = false

  constructor(private readonly h: RejoinHost) {}

  request(): void {
    if (this.h.closed()) return
    this.wanted = true
    this.try()
  }

  /** Runs a wanted rejoin unless one runs or a connection is down (called again when it is back). */
  try(): void {
    const h = this.h
    if (h.closed() || !this.wanted || this.running || !h.ready()) return
    this.wanted = false
    this.running = true
    // Joins may have been announced while we were cut off: ask Redis again at the next cycle.
    for (const f of h.followed.values()) f.othersMayHaveChanged()
    const docs = [...h.followed.keys()]
    rejoin(h.pub, h.nodeId, docs)
      .then(() => h.send.join(docs))
      .then(
        () => {
          this.running = false
          if (h.closed()) return
          h.log.warn({ docs: docs.length }, 'bus: registered again with Redis; resyncing followed documents')
          // A node that joined while we were cut off may have missed cycles we did not send.
          h.send.heads([...h.followed.values()].filter((f) => f.unsent))
          for (const docId of docs) this.resync(docId)
          this.try()
        },
        (err: unknown) => {
          this.running = false
          if (h.closed()) return
          this.wanted = true
          h.log.warn({ err: describeRedisError(err) }, 'bus: registering again failed; retrying')
          setTimeout(() => this.try(), h.retryMs).unref()
        },
      )
  }

  private resync(docId: string): void {
    const h = this.h
    const f = h.followed.get(docId)
    if (!f) {
      // Unfollowed while the rejoin ran: its registration was just made again.
      unregister(h.pub, h.nodeId, docId).catch(() => undefined)
      return
    }
    f.requestResync('reconnect')
    // Others may have dropped our clients' awareness (our heartbeat lapsed) and we theirs:
    // announce ours (theirs were asked for by the join announcement).
    try {
      f.handlers.onAwarenessQuery?.(h.nodeId)
    } catch (err) {
      h.log.error({ docId, err }, 'bus: re-announcing awareness failed')
    }
  }
}
