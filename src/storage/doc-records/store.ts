// Records a feature keeps per document beside it (named versions, suggestions, the next one's):
// each a JSON record with an id plus one opaque body (a state, an update), keyed by document so
// a hard delete erases them in one call. One interface, three engines (leveldb.ts, postgres.ts,
// memory.ts) and one contract test; a feature gives its own layout (sublevel, table) as a
// parameter, so what it wrote before this store existed reads back unchanged.

/** What every per-document record has: its id within the document and when it was made. */
export interface DocRecord {
  id: string
  created_at_ms: number
}

export interface DocRecords<R extends DocRecord> {
  /** Stores the record and its body in one durable write. */
  create(docId: string, record: R, body: Uint8Array): Promise<void>
  /** Every record of the document, newest first (records only). */
  list(docId: string): Promise<R[]>
  get(docId: string, id: string): Promise<R | null>
  /** The record's body, null when there is no such record. */
  body(docId: string, id: string): Promise<Uint8Array | null>
  /**
   * Writes `next` over the record of its id when that record's revision (the number the layout
   * names) still is `expected`; false when another write won or the record is gone. Atomic: two
   * replaces racing, in one process or several, never both win. The body stays as it was, or
   * becomes `body` in the same write when one is given (a suggestion a stream still grows).
   */
  replace(docId: string, next: R, expected: number, body?: Uint8Array): Promise<boolean>
  /** Whether a record (and its body) was removed. */
  remove(docId: string, id: string): Promise<boolean>
  /** Erases every record of the document and their bodies: the hard delete's share. */
  erase(docId: string): Promise<void>
}

/** Newest first: creation time, then id, so records of one millisecond keep one order. */
export function newestFirst(a: DocRecord, b: DocRecord): number {
  return b.created_at_ms - a.created_at_ms || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
}
