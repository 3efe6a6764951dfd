// Where named versions live: one small interface, one implementation per document store
// (LevelDB sublevel, PostgreSQL table, memory twin). Every record is keyed by document, so one
// call erases everything a document's versions hold (a hard delete).
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
export const renamedAt = (previous: number, now: number) => Math.max(now, previous + 1)
