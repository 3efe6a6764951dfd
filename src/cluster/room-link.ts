// The link between one loaded room and the bus: what the room does with what other nodes
// committed (apply, then broadcast to its own sockets), how it catches up from storage, and which
// awareness changes it relays. A room builds one after load and closes it on unload. It touches
// only the room's Awareness and its door for committed updates, so the room's own write path
// (validate, judge, commit, publish, acknowledge) stays where it is.
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import type { DocStore } from '../storage/doc-store.js'
import type { DocBus, FollowHandlers } from './bus.js'
import type { RemoteAwareness } from './remote-awareness.js'
import { readMissed } from './resync.js'

/** Origin of changes that came from another node (or its lapse): never relayed back to the bus. */
class RemoteOrigin {
  constructor(readonly node: string) {}
}

export interface RoomLinkOptions {
  docId: string
  /** takes an update committed elsewhere into the room and sends it to this node's sockets */
  applyRemote: (update: Uint8Array) => void
  awareness: awarenessProtocol.Awareness
  /** the seq the room loaded up to */
  lastSeq: number
  store: DocStore
  bus: DocBus
  remote: RemoteAwareness
}

interface AwarenessChange {
  added: number[]
  updated: number[]
  removed: number[]
}

export class RoomLink {
  private closed = false
  private readonly onAwarenessChange: (change: AwarenessChange, origin: unknown) => void

  private constructor(private readonly o: RoomLinkOptions) {
    this.onAwarenessChange = (change, origin) => {
      if (this.closed) return
      if (origin instanceof RemoteOrigin) {
        this.o.remote.note(origin.node, this.o.docId, change)
        return
      }
      // A local peer's change, its leave (origin null) or a timeout: relay ids that are ours.
      const ids = [...change.added, ...change.updated, ...change.removed].filter((id) => this.o.remote.owner(this.o.docId, id) === undefined)
      if (ids.length) {
        this.o.bus.publishAwareness(this.o.docId, awarenessProtocol.encodeAwarenessUpdate(this.o.awareness, ids))
      }
    }
  }

  /** Follows the document; resolves once subscribed and caught up with storage. */
  static async open(o: RoomLinkOptions): Promise<RoomLink> {
    const link = new RoomLink(o)
    o.awareness.on('update', link.onAwarenessChange)
    try {
      await o.bus.follow(o.docId, o.lastSeq, link.handlers())
    } catch (err) {
      o.awareness.off('update', link.onAwarenessChange)
      throw err
    }
    return link
  }

  private handlers(): FollowHandlers {
    return {
      onUpdate: (m) => {
        this.o.applyRemote(m.update)
      },
      onAwareness: (m) => awarenessProtocol.applyAwarenessUpdate(this.o.awareness, m.update, new RemoteOrigin(m.node)),
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
    const ids = [...this.o.awareness.getStates().keys()].filter(
      (id) => id !== this.o.awareness.clientID && this.o.remote.owner(this.o.docId, id) === undefined,
    )
    if (ids.length) this.o.bus.publishAwareness(this.o.docId, awarenessProtocol.encodeAwarenessUpdate(this.o.awareness, ids))
  }

  /** A node's heartbeat lapsed: its clients' awareness goes (and local sockets are told). */
  dropNode(node: string, ids: number[]): void {
    if (this.closed || ids.length === 0) return
    awarenessProtocol.removeAwarenessStates(this.o.awareness, ids, new RemoteOrigin(node))
  }

  /** The room unloads: stop following. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.o.awareness.off('update', this.onAwarenessChange)
    this.o.remote.forgetDoc(this.o.docId)
    await this.o.bus.unfollow(this.o.docId)
  }
}
