// Copies one Tandem deployment's storage into another, through the DocStore and ControlStore
// interfaces (tandem migrate: a LevelDB data dir into PostgreSQL). Resumable: every step is
// idempotent or continues from what the target already holds, so a rerun after an interruption
// finishes the job without duplicating anything.
//
// Per document: the log is appended in chunks (each one atomic) from the target's last seq on,
// then the side records, then the snapshot last, so a target document holding a snapshot is
// complete. Control records are upserted in pages. Signing keys are added by kid.
import type { JWK } from 'jose'
import type { StoredKey } from '../auth/keys/postgres.js'
import type { ControlRecord, ControlStore } from '../control/store.js'
import { RECORD_NAME as HISTORY_RECORD } from '../history/service.js'
import type { DocStore, StoredUpdate } from '../storage/doc-store.js'
import type { SuggestionStore } from '../suggestions/store.js'
import type { VersionStore } from '../versions/store.js'

/**
 * Every side record name a module writes beside documents (DocStore.writeMeta) that a copy keeps.
 * Not the content base key (src/content/base-token.ts): the target makes its own, so bases given
 * out before the migration are refused (read again) instead of trusted across stores.
 */
export const META_NAMES: readonly string[] = [HISTORY_RECORD]

const CONTROL_PAGE = 500

export interface KeyTarget {
  read(): Promise<StoredKey[]>
  /** Adds keys absent by kid; `position` orders them (the highest signs). */
  add(keys: { jwk: JWK; position: number }[]): Promise<void>
}

export interface CopySource {
  docs: DocStore
  /** named versions (absent: none are copied) */
  versions?: VersionStore
  /** suggestions held for review (absent: none are copied) */
  suggestions?: SuggestionStore
  control: ControlStore
  /** private JWKs, the signing one first (the data dir's signing-keys.json); [] when there is none */
  keys: JWK[]
}

export interface CopyTarget {
  docs: DocStore
  versions?: VersionStore
  suggestions?: SuggestionStore
  control: ControlStore
  keys: KeyTarget
}

type Progress =
  | { kind: 'document'; docId: string; index: number; total: number; appended: number; done: boolean }
  | { kind: 'chunk'; docId: string; appended: number }
  | { kind: 'control'; copied: number }
  | { kind: 'keys'; added: number }

export interface CopyOptions {
  /** log entries per atomic append (default 500) */
  chunkEntries?: number
  /** called after every step; throwing stops the copy there (tests interrupt a run with it) */
  onProgress?: (p: Progress) => void
  /** a control record as the target keeps it (moved database assets change provider) */
  transform?: (r: ControlRecord) => ControlRecord
}

export interface CopyReport {
  documents: number
  /** log entries appended by this run (0 for documents a previous run finished) */
  appended: number
  documentsSkipped: number
  controlRecords: number
  keysAdded: number
  /** keys put below the target's own (it already had keys), so they verify but do not sign */
  keysBelowExisting: boolean
}

async function copyDocument(
  src: DocStore,
  dst: DocStore,
  docId: string,
  o: Required<Pick<CopyOptions, 'chunkEntries'>> & CopyOptions,
): Promise<{ appended: number; skipped: boolean }> {
  const s = await src.load(docId)
  const t = await dst.load(docId)
  // A snapshot is written last: its presence means an earlier run finished this document.
  if (t.snapshot && s.snapshot && t.snapshot.seq === s.snapshot.seq && t.lastSeq === s.lastSeq)
    return { appended: 0, skipped: true }
  if (t.lastSeq > s.lastSeq)
    throw new Error(
      `document ${docId}: the target holds seq ${t.lastSeq}, beyond the source's ${s.lastSeq}; it is not a copy of this data dir`,
    )
  let appended = 0
  let chunk: StoredUpdate[] = []
  const flush = async () => {
    if (chunk.length === 0) return
    await dst.appendMany([
      {
        docId,
        firstSeq: chunk[0]!.seq,
        entries: chunk.map(({ user, at, update, attrs }) =>
          attrs ? { user, at, update, attrs } : { user, at, update },
        ),
      },
    ])
    appended += chunk.length
    chunk = []
    o.onProgress?.({ kind: 'chunk', docId, appended })
  }
  let expected = t.lastSeq + 1
  for await (const u of src.readLog(docId, t.lastSeq + 1)) {
    // appendMany numbers entries from firstSeq on: a gap in the source log starts a new chunk.
    if (u.seq !== expected) await flush()
    expected = u.seq + 1
    chunk.push(u)
    if (chunk.length >= o.chunkEntries) await flush()
  }
  await flush()
  for (const name of META_NAMES) {
    const value = await src.readMeta(docId, name)
    if (value) await dst.writeMeta(docId, name, value)
  }
  if (s.snapshot) await dst.writeSnapshot(docId, s.snapshot)
  return { appended, skipped: appended === 0 && t.lastSeq === s.lastSeq }
}

/** A document's named versions the target lacks (by id): a resumed copy adds the rest. */
async function copyVersions(src: VersionStore, dst: VersionStore, docId: string): Promise<void> {
  for (const record of await src.list(docId)) {
    if (await dst.get(docId, record.id)) continue
    const state = await src.state(docId, record.id)
    if (state) await dst.create(docId, record, state)
  }
}

/** A document's suggestions the target lacks (by id), each with its update and its record as it stands. */
async function copySuggestions(src: SuggestionStore, dst: SuggestionStore, docId: string): Promise<void> {
  for (const record of await src.list(docId)) {
    if (await dst.get(docId, record.id)) continue
    const update = await src.update(docId, record.id)
    if (update) await dst.create(docId, record, update)
  }
}

async function copyControl(
  src: ControlStore,
  dst: ControlStore,
  onProgress?: (p: Progress) => void,
  transform = (r: ControlRecord) => r,
): Promise<number> {
  let copied = 0
  for (let after = ''; ;) {
    const page = await src.scan(after, CONTROL_PAGE)
    if (page.length === 0) return copied
    await dst.batch(page.map(transform).map((r) => ({ type: 'put' as const, key: r.key, value: r.value })))
    copied += page.length
    after = page[page.length - 1]!.key
    onProgress?.({ kind: 'control', copied })
  }
}

async function copyKeys(src: JWK[], dst: KeyTarget): Promise<{ added: number; below: boolean }> {
  if (src.length === 0) return { added: 0, below: false }
  const existing = await dst.read()
  const have = new Set(existing.map((k) => k.kid))
  const fromSource = new Set(src.map((k) => k.kid))
  const missing = src.filter((k) => !have.has(k.kid!))
  if (missing.length === 0) return { added: 0, below: false }
  // An empty target (or one holding only this source's keys) takes the source's order as is; a
  // target with keys of its own keeps signing with them and gets the source's keys below.
  const foreign = existing.filter((k) => !fromSource.has(k.kid))
  const base = foreign.length === 0 ? 0 : Math.min(...existing.map((k) => k.position)) - src.length - 1
  await dst.add(src.map((jwk, i) => ({ jwk, position: base + src.length - i })).filter((k) => !have.has(k.jwk.kid!)))
  return { added: missing.length, below: foreign.length > 0 }
}

export async function copyStorage(src: CopySource, dst: CopyTarget, opts: CopyOptions = {}): Promise<CopyReport> {
  const o = { chunkEntries: 500, ...opts }
  const ids: string[] = []
  for await (const id of src.docs.listDocs()) ids.push(id)
  const report: CopyReport = {
    documents: ids.length,
    appended: 0,
    documentsSkipped: 0,
    controlRecords: 0,
    keysAdded: 0,
    keysBelowExisting: false,
  }
  // Keys and control records first: they are small, and a half-copied document is resumed anyway.
  const keys = await copyKeys(src.keys, dst.keys)
  report.keysAdded = keys.added
  report.keysBelowExisting = keys.below
  o.onProgress?.({ kind: 'keys', added: keys.added })
  report.controlRecords = await copyControl(src.control, dst.control, o.onProgress, o.transform)
  for (const [index, docId] of ids.entries()) {
    const r = await copyDocument(src.docs, dst.docs, docId, o)
    if (src.versions && dst.versions) await copyVersions(src.versions, dst.versions, docId)
    if (src.suggestions && dst.suggestions) await copySuggestions(src.suggestions, dst.suggestions, docId)
    report.appended += r.appended
    if (r.skipped) report.documentsSkipped++
    o.onProgress?.({ kind: 'document', docId, index, total: ids.length, appended: r.appended, done: true })
  }
  return report
}
