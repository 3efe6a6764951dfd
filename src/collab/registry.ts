// Loaded rooms. A room loads once (concurrent joins share the load), unloads after its last
// holder leaves plus an idle delay, and never with unflushed updates. Shutdown is idempotent.
import * as Y from 'yjs'
import { CLOSE } from '../protocol/close-codes.js'
import { docIdOf } from '../storage/doc-store.js'
import type { DocRef, DocService } from './doc-service.js'
import { GroupCommitter } from './group-commit.js'
import { Room, type RoomOptions } from './room.js'

const SHUTDOWN_FLUSH_MS = 15_000

/**
 * What every room gets (less its id and the writer), plus how long an idle room stays loaded.
 * The registry owns the process's one group committer unless one is given.
 */
export type RegistryOptions = Omit<RoomOptions, 'docId' | 'committer'> & { unloadDelayMs: number; committer?: GroupCommitter }

export class RoomRegistry implements DocService {
  private rooms = new Map<string, Room>()
  private loading = new Map<string, Promise<Room>>()
  private unloadTimers = new Map<string, NodeJS.Timeout>()
  private closing = false
  /** one storage write in flight for every room of the process */
  readonly committer: GroupCommitter

  constructor(private readonly o: RegistryOptions) {
    this.committer = o.committer ?? new GroupCommitter({ store: o.store, log: o.log, metrics: o.metrics })
  }

  get size(): number {
    return this.rooms.size
  }

  /** Every loaded room (for sweeps over live peers, e.g. revocations). */
  all(): IterableIterator<Room> {
    return this.rooms.values()
  }

  loaded(docId: string): Room | undefined {
    return this.rooms.get(docId)
  }

  /** The room for a document, loading it once; the caller holds it until `release`. */
  async acquire(ref: DocRef, opener = 'system'): Promise<Room> {
    const docId = docIdOf(ref.org, ref.doc, ref.branch)
    const timer = this.unloadTimers.get(docId)
    if (timer) {
      clearTimeout(timer)
      this.unloadTimers.delete(docId)
    }
    let room = this.rooms.get(docId)
    if (!room) {
      let loading = this.loading.get(docId)
      if (!loading) {
        loading = this.load(ref, docId, opener)
        this.loading.set(docId, loading)
        loading.then(
          () => this.loading.delete(docId),
          () => this.loading.delete(docId),
        )
      }
      room = await loading
    }
    room.holds++
    return room
  }

  release(room: Room): void {
    room.holds--
    this.maybeScheduleUnload(room)
  }

  private async load(ref: DocRef, docId: string, opener: string): Promise<Room> {
    if (this.closing) throw new Error('server is shutting down')
    const room = new Room({ docId, ...this.o, committer: this.committer })
    const branch = ref.branch ?? 'main'
    const seed =
      branch === 'main'
        ? undefined
        : () => this.withDoc({ org: ref.org, doc: ref.doc, branch: 'main' }, (d) => Y.encodeStateAsUpdate(d))
    try {
      await room.load(seed, `fork:main:${opener}`)
    } catch (err) {
      room.destroy() // storage unavailable: free the document and its awareness timer
      throw err
    }
    this.rooms.set(docId, room)
    this.o.metrics.rooms.set(this.rooms.size)
    return room
  }

  /** Called when a peer leaves or a hold is released. */
  maybeScheduleUnload(room: Room): void {
    if (!room.idle || room.destroyed || this.unloadTimers.has(room.docId) || this.closing) return
    const timer = setTimeout(() => void this.unload(room), this.o.unloadDelayMs)
    timer.unref()
    this.unloadTimers.set(room.docId, timer)
  }

  private async unload(room: Room): Promise<void> {
    this.unloadTimers.delete(room.docId)
    await room.flushed()
    // Someone may have joined while the last batch was written; a failed write keeps it pending.
    if (!room.idle || room.hasUnflushed || this.rooms.get(room.docId) !== room) {
      if (room.hasUnflushed) this.maybeScheduleUnload(room)
      return
    }
    this.rooms.delete(room.docId)
    this.o.metrics.rooms.set(this.rooms.size)
    room.destroy()
  }

  // ---- DocService ----------------------------------------------------------------------------

  async withDoc<T>(ref: DocRef, read: (doc: Y.Doc) => T | Promise<T>): Promise<T> {
    const room = await this.acquire(ref)
    try {
      return await read(room.doc)
    } finally {
      this.release(room)
    }
  }

  async applyUpdate(ref: DocRef, update: Uint8Array, user: string): Promise<void> {
    const room = await this.acquire(ref, user)
    try {
      await room.applyUpdate(update, user, null)
    } finally {
      this.release(room)
    }
  }

  /** Flushes every room, then closes every socket with 1001. Safe to call twice. */
  async close(): Promise<void> {
    this.closing = true
    for (const t of this.unloadTimers.values()) clearTimeout(t)
    this.unloadTimers.clear()
    await Promise.allSettled([...this.loading.values()])
    const rooms = [...this.rooms.values()]
    // A store that keeps failing must not hang shutdown forever: wait a bounded time, and say
    // which documents could not be written.
    await Promise.all(
      rooms.map(async (r) => {
        let timer: NodeJS.Timeout | undefined
        const gaveUp = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), SHUTDOWN_FLUSH_MS)))
        const outcome = await Promise.race([r.flushed().then(() => 'ok' as const), gaveUp]).catch((err) => {
          this.o.log.error({ err, docId: r.docId }, 'flush on shutdown failed')
          return 'error' as const
        })
        clearTimeout(timer)
        if (outcome === 'timeout') this.o.log.error({ docId: r.docId }, 'shutdown: updates could not be written in time')
      }),
    )
    for (const r of rooms) r.destroy(CLOSE.goingAway, 'server shutting down')
    this.rooms.clear()
    this.o.metrics.rooms.set(0)
  }
}
