// A room's awareness (cursors, names): y-protocols' Awareness, whose changes go out to every peer
// once per tick. Changes made by a peer's message are remembered per peer, so its states can be
// removed when it leaves; every change goes out to every peer (the sender too: its own echo is
// what keeps a quiet provider from timing out).
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { AppError } from '../../infra/errors.js'
import { encodeAwareness } from '../../protocol/messages.js'
import { Peer } from '../peer.js'
import { checkAwarenessUpdate } from '../awareness-update.js'

/**
 * Awareness reads only a client id (its own state is cleared: the server has none) and listens
 * for its document's destroy; a room holds no Y.Doc, so it gets this much of one. The room
 * destroys the awareness itself.
 */
function awarenessHost(): Y.Doc {
  // a random id, as a Y.Doc draws one: a client using the same id would lose its timeout
  return { clientID: Math.floor(Math.random() * 2 ** 32), on() {}, off() {} } as unknown as Y.Doc
}

export class RoomAwareness {
  readonly awareness = new awarenessProtocol.Awareness(awarenessHost())
  private changed = new Set<number>()
  private scheduled = false
  private closed = false

  constructor(private readonly publish: (frame: Uint8Array) => void) {
    this.awareness.setLocalState(null)
    this.awareness.on('update', ({ added, updated, removed }: Record<string, number[]>, origin: unknown) => {
      if (this.closed) return // nobody is left to tell (a thousand rooms at shutdown)
      if (origin instanceof Peer) {
        if (added!.length > 0) for (const id of added!) origin.awarenessIds.add(id)
        if (removed!.length > 0 && origin.hasAwareness) for (const id of removed!) origin.awarenessIds.delete(id)
      }
      for (const id of added!) this.changed.add(id)
      for (const id of updated!) this.changed.add(id)
      for (const id of removed!) this.changed.add(id)
      this.schedule()
    })
  }

  /** Awareness changes of one tick go out as one message listing every changed client. */
  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      if (this.closed || this.changed.size === 0) return
      const ids = [...this.changed]
      this.changed.clear()
      this.publish(encodeAwareness(awarenessProtocol.encodeAwarenessUpdate(this.awareness, ids)))
    })
  }

  receive(peer: Peer, update: Uint8Array): void {
    try {
      awarenessProtocol.applyAwarenessUpdate(this.awareness, update, peer)
    } catch {
      throw new AppError('malformed_message', 'invalid awareness update')
    }
  }

  /** A REST caller's awareness update, checked whole first (its clients belong to no socket). */
  receiveRest(update: Uint8Array): void {
    checkAwarenessUpdate(update)
    awarenessProtocol.applyAwarenessUpdate(this.awareness, update, 'rest')
  }

  /** The peer left: the states it introduced go, for everyone. */
  forget(peer: Peer): void {
    if (peer.hasAwareness) awarenessProtocol.removeAwarenessStates(this.awareness, [...peer.awarenessIds], null)
  }

  /** Every state the room knows, as one update, or null when none. */
  encodeAll(): Uint8Array | null {
    const ids = [...this.awareness.getStates().keys()]
    return ids.length ? awarenessProtocol.encodeAwarenessUpdate(this.awareness, ids) : null
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.awareness.destroy()
  }
}
