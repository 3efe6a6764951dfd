// Where suggestions live: one small interface, one implementation per document store (LevelDB
// sublevel, PostgreSQL table, memory twin), keyed by document so a hard delete erases them in one
// call. A decision is a compare-and-set on the record's `rev`: two reviewers racing, in one
// process or several, never both win.
import type { SuggestionRecord } from './record.js'

export interface SuggestionStore {
  /** Stores the record and its update in one durable write. */
  create(docId: string, record: SuggestionRecord, update: Uint8Array): Promise<void>
  /** Every suggestion of the document, newest first (records only). */
  list(docId: string): Promise<SuggestionRecord[]>
  get(docId: string, id: string): Promise<SuggestionRecord | null>
  /** The suggestion's Yjs update, null when there is no such suggestion. */
  update(docId: string, id: string): Promise<Uint8Array | null>
  /** Replaces the record when its `rev` is still `next.rev - 1`; false when another change won (or it is gone). */
  replace(docId: string, next: SuggestionRecord): Promise<boolean>
  /** Erases every suggestion of the document: the hard delete's share. */
  erase(docId: string): Promise<void>
}
