// The link between one loaded room and the bus: what the room does with what other nodes
// committed (apply, then broadcast to its own sockets), how it catches up from storage, and which
// awareness it relays. A room builds one after load and closes it on unload. It touches only the
// room's awareness and its door for committed updates, so the room's own write path (validate,
// judge, commit, publish, acknowledge) stays where it is. The room's awareness coalesces its own
// clients' changes into one update per window, so the bus carries one message per window per room.
import * as Y from 'yjs'
import type { DocStore } from '../storage/doc-store.js'
import type { DocBus, FollowHandlers } from './bus.js'
import type { RemoteAwareness } from './remote-awareness.js'
import { readMissed } from './resync.js'

/** What the link needs of a room's awareness (src/collab/room/awareness.ts). */
interface LinkedAwareness {
  /** this node's own changes, one update per window, go to `bus` (null: no more) */
  relayTo(bus: ((update: Uint8Array) => void) | null): void
  /** another node's update, for this node's sockets only; which clients it added, updated, removed */
  applyRemote(node: string, update: Uint8Array): { added: number[]; updated: number[]; removed: number[] }
  /** a lapsed node's clients go */
  dropRemote(node: string, ids: number[]): void
  /** the states of this node's clients, as one update, or null */
  encodeLocal(): Uint8Array | null
}

export interface RoomLinkOptions {
  docId: string
  /** takes an update committed elsewhere into the room and sends it to this node's sockets */
  applyRemote: (update: Uint8Array) => void
  awareness: LinkedAwareness
  /** the seq the room loaded up to */
  lastSeq: number
  store: DocStore
  bus: DocBus
  remote: RemoteAwareness
}

export class RoomLink {
  private closed = false

  private constructor(private readonly o: RoomLinkOptions) {}

  /** Follows the document; resolves once subscribed and caught up with storage. */
  static async open(o: RoomLinkOptions): Promise<RoomLink> {
    const link = new RoomLink(o)
    // A local peer's change, its leave or a timeout of ours: one bus message per window.
    o.awareness.relayTo((update) => o.bus.publishAwareness(o.docId, update))
    try {
      await o.bus.follow(o.docId, o.lastSeq, link.handlers())
    } catch (err) {
      o.awareness.relayTo(null)
      throw err
    }
    return link
  }

  private handlers(): FollowHandlers {
    return {
      onUpdate: (m) => {
        this.o.applyRemote(m.update)
      },
      onAwareness: (m) => {
        if (!this.closed) this.o.remote.note(m.node, this.o.docId, this.o.awareness.applyRemote(m.node, m.update))
      },
      onAwarenessQuery: () => this.announce(),
      resync: async (fromSeq) => {
        const missed = await readMissed(this.o.store, this.o.docId, fromSeq)
        if (missed.updates.length && !this.closed) {
          const update = missed.updates.length === 1 ? missed.updates[0]! : Y.mergeUpdates(missed.updates)
          this.o.applyRemote(update)
        }
        return missed.head
      },
    }
  }

  /** Publishes the awareness of this node's clients (another node asked, or we reconnected). */
  private announce(): void {
    const update = this.o.awareness.encodeLocal()
    if (update) this.o.bus.publishAwareness(this.o.docId, update)
  }

  /** A node's heartbeat lapsed: its clients' awareness goes (and local sockets are told). */
  dropNode(node: string, ids: number[]): void {
    if (this.closed || ids.length === 0) return
    this.o.awareness.dropRemote(node, ids)
  }

  /** The room unloads: stop following. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.o.awareness.relayTo(null)
    this.o.remote.forgetDoc(this.o.docId)
    await this.o.bus.unfollow(this.o.docId)
  }
}
