// The bus's outgoing write cycles: every cycle queued in a turn goes to Redis in one script call; while
// Redis is unreachable they are held and sent after the reconnect. A cycle resolves only once Redis
// accepted it, which is what its acknowledgement to clients waits for.
import type { Logger } from '../infra/log.js'
import type { ClusterMetrics } from './metrics.js'
import { publishToFollowers } from './followers.js'
import { describeRedisError, type RedisClient } from './redis.js'

export type Frame = [docId: string, payload: Buffer]

interface Outgoing {
  frames: Frame[]
  startedAt: number
  /** messages sent per frame (other followers reached) */
  resolve: (sent: number[]) => void
  reject: (err: Error) => void
}

const RETRY_MS = 200

export class BusOutbox {
  private held: Outgoing[] = []
  private timer: NodeJS.Timeout | null = null
  private closed = false

  /** `pub` must fail commands while disconnected (disableOfflineQueue): the outbox does the holding. */
  constructor(
    private readonly pub: RedisClient,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly metrics?: ClusterMetrics,
  ) {}

  /** Cycles waiting for Redis. */
  get pending(): number {
    return this.held.length
  }

  /** Resolves, once Redis ran it, with how many other followers each frame reached. */
  send(frames: Frame[]): Promise<number[]> {
    return new Promise<number[]>((resolve, reject) => {
      this.held.push({ frames, startedAt: performance.now(), resolve, reject })
      this.pump()
    })
  }

  /** Sends everything held, if Redis is up (also called on every reconnect). */
  pump(): void {
    if (this.closed || this.held.length === 0 || !this.pub.isReady) return
    const batch = this.held
    this.held = []
    publishToFollowers(
      this.pub,
      this.nodeId,
      batch.flatMap((o) => o.frames),
    ).then(
      (sent) => {
        const now = performance.now()
        this.metrics?.busMessages.inc(
          { direction: 'out', type: 'update' },
          sent.reduce((a, b) => a + b, 0),
        )
        let k = 0
        for (const o of batch) {
          this.metrics?.busPublishSeconds.observe((now - o.startedAt) / 1000)
          o.resolve(sent.slice(k, (k += o.frames.length)))
        }
      },
      (err: unknown) => {
        // A script that failed may have sent some messages: sending them again is harmless (receivers track seqs,
        // Yjs updates are idempotent); losing them is not.
        if (this.closed) {
          for (const o of batch) o.reject(new Error('bus is closed'))
          return
        }
        this.held = batch.concat(this.held)
        this.log.warn(
          { err: describeRedisError(err), held: this.held.length },
          'bus: publish failed; held until Redis is back',
        )
        this.schedulePump()
      },
    )
  }

  private schedulePump(): void {
    if (this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.pump()
    }, RETRY_MS)
    this.timer.unref()
  }

  /** Rejects every held cycle; a pipeline in flight rejects its own when it fails. */
  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    for (const o of this.held.splice(0)) o.reject(new Error('bus is closed'))
  }
}
