// Where named versions live: one small interface over the per-document record store
// (src/storage/doc-records/), whose engines (leveldb.ts, postgres.ts, memory.ts here) each only
// give the versions' layout. Every record is keyed by document, so one call erases everything a
// document's versions hold (a hard delete).
import type { DocRecords } from '../storage/doc-records/store.js'
import type { VersionRecord } from './record.js'

/** A rename answered by the store: the new record, the current one when the check failed, or null (no such version). */
export type RenameResult = { ok: true; record: VersionRecord } | { ok: false; current: VersionRecord } | null

export interface VersionStore {
  /** Stores the record and its state in one durable write. */
  create(docId: string, record: VersionRecord, state: Uint8Array): Promise<void>
  /** Every version of the document, newest first (records only). */
  list(docId: string): Promise<VersionRecord[]>
  get(docId: string, id: string): Promise<VersionRecord | null>
  /** The encoded document of a version, null when there is no such version. */
  state(docId: string, id: string): Promise<Uint8Array | null>
  /**
   * Renames when the record's `updated_at_ms` still is `expected` (atomic: two renames racing, in
   * one process or several, never both win). The new `updated_at_ms` is `now`, or one past the
   * old one when the clock has not moved.
   */
  rename(docId: string, id: string, name: string, expected: number, now: number): Promise<RenameResult>
  /** Whether a version was removed. */
  remove(docId: string, id: string): Promise<boolean>
  /** Erases every version of the document (records and states): the hard delete's share. */
  erase(docId: string): Promise<void>
}

/** The `updated_at_ms` a rename writes: strictly after the one it replaces. */
const renamedAt = (previous: number, now: number) => Math.max(now, previous + 1)

/** A rename is checked against `updated_at_ms`, which every rename moves. */
export const versionRevision = (r: VersionRecord) => r.updated_at_ms

/** Named versions over one engine of the record store: the body of a version is its state. */
export class VersionRecords implements VersionStore {
  constructor(private readonly records: DocRecords<VersionRecord>) {}

  create(docId: string, record: VersionRecord, state: Uint8Array): Promise<void> {
    return this.records.create(docId, record, state)
  }

  list(docId: string): Promise<VersionRecord[]> {
    return this.records.list(docId)
  }

  get(docId: string, id: string): Promise<VersionRecord | null> {
    return this.records.get(docId, id)
  }

  state(docId: string, id: string): Promise<Uint8Array | null> {
    return this.records.body(docId, id)
  }

  async rename(docId: string, id: string, name: string, expected: number, now: number): Promise<RenameResult> {
    const current = await this.records.get(docId, id)
    if (!current) return null
    if (current.updated_at_ms !== expected) return { ok: false, current }
    // Only the name and updated_at_ms of a version ever change, and the replace checks the latter.
    const record = { ...current, name, updated_at_ms: renamedAt(expected, now) }
    if (await this.records.replace(docId, record, expected)) return { ok: true, record }
    // Lost the race. Read the winner in a statement of its own: on PostgreSQL the UPDATE waited
    // for the winner's commit, but a read in its statement would still see the row before it.
    const winner = await this.records.get(docId, id)
    return winner ? { ok: false, current: winner } : null
  }

  remove(docId: string, id: string): Promise<boolean> {
    return this.records.remove(docId, id)
  }

  erase(docId: string): Promise<void> {
    return this.records.erase(docId)
  }
}
