// What the rest of the process (the /api/v0 app, history endpoints) may ask of collaborative
// documents, without knowing about rooms, sockets or storage layout; and RoomDocs, the answer over
// the room registry: each call holds the document's room (loading it once) for its duration.
import type * as Y from 'yjs'
import type { Attributes } from '../storage/doc-store.js'
import type { DocBuilds } from './room/doc-builds.js'
import type { Room } from './room/room.js'

export interface DocRef {
  org: string
  doc: string
  branch?: string // default 'main'
}

export interface DocService {
  /**
   * Runs `read` against the document's current state: the live room's Y.Doc when editors are
   * connected (so the result is fresh), otherwise the stored state. `read` must not mutate the doc
   * and must not keep it after returning.
   */
  withDoc<T>(ref: DocRef, read: (doc: Y.Doc) => T | Promise<T>): Promise<T>
  /**
   * Runs `use` with the document as one encoded update (no Y.Doc is built for it), counted and
   * queued with the process's other document builds: `use` may build one, here or in a worker.
   */
  withState<T>(ref: DocRef, use: (state: Uint8Array) => Promise<T>): Promise<T>
  /**
   * Applies a Yjs update attributed to `user` (and `attrs`); durable before the promise resolves;
   * broadcast live. Resolves with the update's seq in the log, null when it changed nothing.
   */
  applyUpdate(ref: DocRef, update: Uint8Array, user: string, attrs?: Attributes): Promise<number | null>
}

/** What RoomDocs needs of the registry: a held room, and the process's document builds. */
export interface HeldRooms {
  acquire(ref: DocRef, opener?: string): Promise<{ readonly room: Room; release(): void }>
  readonly docBuilds: DocBuilds
}

export class RoomDocs implements DocService {
  constructor(private readonly rooms: HeldRooms) {}

  async withDoc<T>(ref: DocRef, read: (doc: Y.Doc) => T | Promise<T>): Promise<T> {
    const hold = await this.rooms.acquire(ref)
    try {
      return await hold.room.withDoc(read)
    } finally {
      hold.release()
    }
  }

  async withState<T>(ref: DocRef, use: (state: Uint8Array) => Promise<T>): Promise<T> {
    const state = await this.encodeState(ref) // never changed in place: safe to use after the hold goes
    return this.rooms.docBuilds.bounded(state.length, () => use(state), state.length)
  }

  /** The document as one Yjs update, without building a Y.Doc. */
  async encodeState(ref: DocRef): Promise<Uint8Array> {
    const hold = await this.rooms.acquire(ref)
    try {
      return await hold.room.readState()
    } finally {
      hold.release()
    }
  }

  async applyUpdate(ref: DocRef, update: Uint8Array, user: string, attrs?: Attributes): Promise<number | null> {
    const hold = await this.rooms.acquire(ref, user)
    try {
      return await hold.room.applyUpdate(update, user, null, attrs)
    } finally {
      hold.release()
    }
  }
}
