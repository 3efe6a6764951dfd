// What the rest of the process (the /api/v0 app, history endpoints) may ask of collaborative
// documents, without knowing about rooms, sockets or storage layout.
import type * as Y from 'yjs'
import type { Attributes } from '../storage/doc-store.js'

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
