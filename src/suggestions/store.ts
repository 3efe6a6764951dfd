// Where suggestions live: one small interface over the per-document record store
// (src/storage/doc-records/), whose engines (leveldb.ts, postgres.ts, memory.ts here) each only
// give the suggestions' layout; keyed by document so a hard delete erases them in one call. A
// decision is a compare-and-set on the record's `rev`: two reviewers racing, in one process or
// several, never both win.
import type { DocRecords } from '../storage/doc-records/store.js'
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
  /** Replaces the record and its update in one write, under the same compare-and-set as `replace`. */
  revise(docId: string, next: SuggestionRecord, update: Uint8Array): Promise<boolean>
  /** Erases every suggestion of the document: the hard delete's share. */
  erase(docId: string): Promise<void>
}

/** Every change of a suggestion bumps `rev`: the compare of its compare-and-set. */
export const suggestionRevision = (r: SuggestionRecord) => r.rev

/** Suggestions over one engine of the record store: the body of a suggestion is its update. */
export class SuggestionRecords implements SuggestionStore {
  constructor(private readonly records: DocRecords<SuggestionRecord>) {}

  create(docId: string, record: SuggestionRecord, update: Uint8Array): Promise<void> {
    return this.records.create(docId, record, update)
  }

  list(docId: string): Promise<SuggestionRecord[]> {
    return this.records.list(docId)
  }

  get(docId: string, id: string): Promise<SuggestionRecord | null> {
    return this.records.get(docId, id)
  }

  update(docId: string, id: string): Promise<Uint8Array | null> {
    return this.records.body(docId, id)
  }

  replace(docId: string, next: SuggestionRecord): Promise<boolean> {
    return this.records.replace(docId, next, next.rev - 1)
  }

  revise(docId: string, next: SuggestionRecord, update: Uint8Array): Promise<boolean> {
    return this.records.replace(docId, next, next.rev - 1, update)
  }

  erase(docId: string): Promise<void> {
    return this.records.erase(docId)
  }
}
