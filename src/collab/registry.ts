// Loaded rooms. A room loads once (concurrent joins share the load), unloads after its last
// holder leaves plus an idle delay, and never with unflushed updates; in a cluster each follows its
// document on the bus. Shutdown is idempotent. What rooms cost is the memory budget's
// (memory-budget.ts); what the rest of the process asks of documents goes through `docs`.
import type { Config } from '../infra/config.js'
import { AppError } from '../infra/errors.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { docIdOf } from '../storage/doc-store.js'
import { RoomDocs, type DocRef } from './doc-service.js'
import type { DocBus } from '../cluster/bus.js'
import type { Leases } from '../cluster/leases.js'
import type { RemoteAwareness } from '../cluster/remote-awareness.js'
import { RoomLink } from '../cluster/room-link.js'
import { flushWithin } from './flush-within.js'
import { GroupCommitter, type GroupCommitOptions } from './group-commit.js'
import { MemoryBudget, memoryBudgetBytes } from './memory-budget.js'
import { DocBuilds } from './room/doc-builds.js'
import { AgentPresence } from './room/agent-presence.js'
import { Room, presenceSettings, type RoomOptions } from './room/room.js'

const SHUTDOWN_FLUSH_MS = 15_000
/** Y.Docs built at once for calls that need content (each about 14x its document's size) */
const DOC_BUILDS_AT_ONCE = 2
/** A snapshot write takes far less; the lease outlives a slow one and expires soon after a crash. */
const COMPACT_LEASE_MS = 30_000
const NO_LEASE = { release: async () => undefined }

/**
 * What every room gets (less its id and the writer), plus how long an idle room stays loaded.
 * The registry owns the process's one group committer unless one is given.
 */
export type RegistryOptions = Omit<RoomOptions, 'docId' | 'committer' | 'cluster' | 'docBuilds'> & {
  unloadDelayMs: number
  /** ms an agent stays in a room's awareness after its last call (AgentPresence) */
  agentPresenceTtlMs?: number
  /** bytes of rooms and transient documents past which idle rooms unload and new ones are refused (0: none) */
  memoryBudgetBytes?: number
  committer?: GroupCommitter
  /** least ms between the starts of two write cycles (GroupCommitOptions.minIntervalMs) */
  commitIntervalMs?: number
  /** builds the committer when none is given (default: a GroupCommitter) */
  buildCommitter?: (o: GroupCommitOptions) => GroupCommitter
  /** builds each room (default: a Room) */
  buildRoom?: (o: RoomOptions) => Room
  /** cluster mode: every loaded room follows its document on the bus */
  cluster?: { bus: DocBus; leases: Leases; remote: RemoteAwareness; cycleIdPrefix: string }
}

/** What the settings say of every room: one reading for the server and the admin CLI's own registry. */
export function roomSettings(config: Config) {
  return {
    maxDocBytes: config.maxDocBytes,
    compactThreshold: config.compactThreshold,
    maxBackpressureBytes: config.maxBackpressureBytes,
    fullStateKeepMs: config.syncCacheMs,
    presence: presenceSettings(config),
    unloadDelayMs: config.roomUnloadDelayMs,
    agentPresenceTtlMs: config.agentPresenceTtl * 1000,
    memoryBudgetBytes: memoryBudgetBytes(config.memoryBudgetMb),
    commitIntervalMs: config.commitIntervalMs,
  } satisfies Partial<RegistryOptions>
}

const newRoom = (o: RoomOptions): Room => new Room(o)

/** A room kept loaded for its holder until `release` (idempotent). */
export interface RoomHold {
  readonly room: Room
  release(): void
}

export class RoomRegistry {
  private rooms = new Map<string, Room>()
  private loading = new Map<string, Promise<Room>>()
  private unloadTimers = new Map<string, NodeJS.Timeout>()
  private closing = false
  /** a loaded room's side of the bus (cluster mode) */
  private links = new Map<string, RoomLink>()
  /** one storage write in flight for every room of the process */
  readonly committer: GroupCommitter
  /** the process's transient Y.Docs: a few at once, the rest wait */
  readonly docBuilds = new DocBuilds(DOC_BUILDS_AT_ONCE)
  private readonly budget: MemoryBudget
  /** documents for the rest of the process (the /api/v0 app, admin, collab REST writes) */
  readonly docs = new RoomDocs(this)
  /** agents shown in rooms' awareness (their names and carets), each until its TTL */
  readonly agents: AgentPresence

  constructor(private readonly o: RegistryOptions) {
    const cluster = o.cluster && {
      cycleIdPrefix: o.cluster.cycleIdPrefix,
      publish: o.cluster.bus.publish.bind(o.cluster.bus),
    }
    const commitOptions: GroupCommitOptions = {
      store: o.store,
      log: o.log,
      metrics: o.metrics,
      cluster,
      minIntervalMs: o.commitIntervalMs,
    }
    this.committer =
      o.committer ?? (o.buildCommitter ? o.buildCommitter(commitOptions) : new GroupCommitter(commitOptions))
    this.budget = new MemoryBudget(
      o.memoryBudgetBytes ?? 0,
      {
        loaded: () => this.rooms.values(),
        // idle rooms wait for their unload timer, in the order they became idle
        idle: () => [...this.unloadTimers.keys()].flatMap((docId) => this.rooms.get(docId) ?? []),
        unload: (room) => this.unload(room),
        isLoaded: (room) => this.rooms.get(room.docId) === room,
      },
      this.docBuilds,
      o.metrics,
    )
    this.agents = new AgentPresence(
      { acquire: (ref, user) => this.acquire(ref, user), isLoaded: (room) => this.rooms.get(room.docId) === room },
      o.agentPresenceTtlMs ?? 30_000,
      o.log,
    )
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

  /** The room for a document if it is loaded (held as by `acquire`), else null. */
  acquireLoaded(ref: DocRef): RoomHold | null {
    const docId = docIdOf(ref.org, ref.doc, ref.branch)
    const room = this.rooms.get(docId)
    if (!room) return null
    this.keep(docId)
    return this.hold(room)
  }

  /** The room for a document, loading it once, held until the hold is released. */
  async acquire(ref: DocRef, opener = 'system'): Promise<RoomHold> {
    const docId = docIdOf(ref.org, ref.doc, ref.branch)
    this.keep(docId)
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
    return this.hold(room)
  }

  private hold(room: Room): RoomHold {
    room.holds++
    let released = false
    return {
      room,
      release: () => {
        if (released) return
        released = true
        room.holds--
        this.maybeScheduleUnload(room)
      },
    }
  }

  /** Cancels a pending unload: the room is wanted again. */
  private keep(docId: string): void {
    const timer = this.unloadTimers.get(docId)
    if (!timer) return
    clearTimeout(timer)
    this.unloadTimers.delete(docId)
  }

  private async load(ref: DocRef, docId: string, opener: string): Promise<Room> {
    if (this.closing) throw new AppError('unavailable', 'server is shutting down')
    await this.budget.makeRoom()
    const c = this.o.cluster
    const room = (this.o.buildRoom ?? newRoom)({
      docId,
      ...this.o,
      committer: this.committer,
      docBuilds: this.docBuilds,
      cluster: c && {
        watermark: (id) => c.bus.watermark(id),
        // The lease only saves a second node the same work: a document no other node follows
        // (with affinity, nearly all) compacts without asking Redis.
        compactLease: (id) =>
          c.bus.isAlone(id) ? Promise.resolve(NO_LEASE) : c.leases.tryAcquire(`compact:${id}`, COMPACT_LEASE_MS),
      },
    })
    const branch = ref.branch ?? 'main'
    const seed =
      branch === 'main' ? undefined : () => this.docs.encodeState({ org: ref.org, doc: ref.doc, branch: 'main' })
    try {
      await room.load(seed, `fork:main:${opener}`)
      if (this.o.cluster) {
        // Subscribed and caught up with storage before anyone joins: nothing committed elsewhere
        // between the load and the subscription is missed.
        const { bus, remote } = this.o.cluster
        const link = await RoomLink.open({
          docId,
          applyRemote: (update) => room.applyRemote(update),
          awareness: room.awareness,
          lastSeq: room.headSeq,
          store: this.o.store,
          bus,
          remote,
        })
        this.links.set(docId, link)
      }
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
    const timer = this.unloadTimers.get(room.docId)
    if (timer) clearTimeout(timer)
    this.unloadTimers.delete(room.docId)
    await room.flushed()
    // Someone may have joined while the last batch was written; a failed write keeps it pending.
    if (!room.idle || room.hasUnflushed || this.rooms.get(room.docId) !== room) {
      if (room.hasUnflushed) this.maybeScheduleUnload(room)
      return
    }
    this.rooms.delete(room.docId)
    this.o.metrics.rooms.set(this.rooms.size)
    await this.unlink(room.docId)
    room.destroy()
  }

  /** The room stops following its document (unload, shutdown). */
  private async unlink(docId: string): Promise<void> {
    const link = this.links.get(docId)
    if (!link) return
    this.links.delete(docId)
    await link.close().catch((err: unknown) => this.o.log.warn({ err, docId }, 'bus: unfollow failed'))
  }

  /** Loaded rooms of every branch of `{org}/{doc}`. */
  private roomsOf(org: string, doc: string): Room[] {
    const prefix = `${org}/${doc}/`
    return [...this.rooms.values()].filter((r) => r.docId.startsWith(prefix))
  }

  /** Closes every socket of the document (every branch) with `code`; its rooms unload as usual. */
  closeDocument(org: string, doc: string, code: CloseCode, reason: string): void {
    for (const room of this.roomsOf(org, doc)) for (const peer of [...room.peers]) peer.close(code, reason)
  }

  /**
   * Drops the document's rooms (every branch) at once without writing what they hold, closing
   * their sockets with `code` (hard delete). Resolves once no write of theirs is in flight, so
   * an erase that follows is the last word.
   */
  async dropDocument(org: string, doc: string, code: CloseCode, reason: string): Promise<void> {
    const rooms = this.roomsOf(org, doc)
    for (const room of rooms) {
      this.keep(room.docId)
      this.rooms.delete(room.docId)
      room.discard(code, reason)
    }
    this.o.metrics.rooms.set(this.rooms.size)
    const settled = async (room: Room) => {
      await this.unlink(room.docId)
      await room.flushed()
    }
    await Promise.all(rooms.map(settled))
  }

  /** Another node's heartbeat lapsed: its clients' awareness leaves every room here. */
  dropNode(node: string): void {
    if (!this.o.cluster) return
    for (const [docId, ids] of this.o.cluster.remote.takeNode(node)) this.links.get(docId)?.dropNode(node, ids)
  }

  /**
   * Flushes every room, then closes every socket with `code` (1001 going away; a cluster node's
   * drain uses 1012 service restart so providers reconnect elsewhere). Safe to call twice.
   */
  async close(code: CloseCode = CLOSE.goingAway, reason = 'server shutting down'): Promise<void> {
    this.closing = true
    this.agents.close()
    for (const t of this.unloadTimers.values()) clearTimeout(t)
    this.unloadTimers.clear()
    await Promise.allSettled([...this.loading.values()])
    const rooms = [...this.rooms.values()]
    await flushWithin(rooms, SHUTDOWN_FLUSH_MS, this.o.log)
    for (const r of rooms) {
      await this.unlink(r.docId)
      r.destroy(code, reason)
    }
    this.rooms.clear()
    this.o.metrics.rooms.set(0)
  }
}
