// Verification of a copy (tandem migrate): every document's state vector, text, snapshot seq, log
// (seq, author, time and bytes of every entry) and side records equal on both sides; the control
// records equal one for one (so their counts too); every source signing key present in the target.
import { createHash } from 'node:crypto'
import type { JWK } from 'jose'
import * as Y from 'yjs'
import { renderDocText } from '../content/doc-text.js'
import type { ControlRecord, ControlStore } from '../control/store.js'
import type { DocStore } from '../storage/doc-store.js'
import { META_NAMES, type KeyTarget } from './copy.js'

export interface VerifyReport {
  documents: number
  logEntries: number
  controlRecords: number
  keys: number
  /** empty when the copy is faithful */
  mismatches: string[]
}

interface DocDigest {
  stateVector: string
  text: string
  snapshotSeq: number | null
  lastSeq: number
  log: string
  entries: number
  meta: string
}

async function digest(store: DocStore, docId: string): Promise<DocDigest> {
  const state = await store.load(docId)
  const doc = new Y.Doc()
  if (state.snapshot) Y.applyUpdate(doc, state.snapshot.state)
  for (const u of state.updates) Y.applyUpdate(doc, u.update)
  const log = createHash('sha256')
  let entries = 0
  for await (const u of store.readLog(docId)) {
    log
      .update(
        `${u.seq}\0${u.user}\0${u.at}\0${u.attrs ? JSON.stringify(Object.entries(u.attrs).sort()) : ''}\0${u.update.byteLength}\0`,
      )
      .update(u.update)
    entries++
  }
  const meta = createHash('sha256')
  for (const name of META_NAMES) {
    const v = await store.readMeta(docId, name)
    meta.update(`${name}\0${v ? v.byteLength : -1}\0`)
    if (v) meta.update(v)
  }
  const out: DocDigest = {
    stateVector: Buffer.from(Y.encodeStateVector(doc)).toString('base64'),
    text: renderDocText(doc),
    snapshotSeq: state.snapshot?.seq ?? null,
    lastSeq: state.lastSeq,
    log: log.digest('hex'),
    entries,
    meta: meta.digest('hex'),
  }
  doc.destroy()
  return out
}

/** Both stores list keys in UTF-8 byte order, which is not JavaScript's string order. */
const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))

async function allIds(store: DocStore): Promise<string[]> {
  const ids: string[] = []
  for await (const id of store.listDocs()) ids.push(id)
  return ids
}

async function* records(
  store: ControlStore,
  transform: (r: ControlRecord) => ControlRecord,
  skip: (key: string) => boolean,
): AsyncIterable<{ key: string; json: string }> {
  for (let after = ''; ;) {
    const page = await store.scan(after, 1000)
    if (page.length === 0) return
    for (const r of page.map(transform)) if (!skip(r.key)) yield { key: r.key, json: JSON.stringify(r.value) }
    after = page[page.length - 1]!.key
  }
}

export interface VerifyOptions {
  /** a source record as the target should hold it (the copy's own transform) */
  transform?: (r: ControlRecord) => ControlRecord
  /** records only the target holds, by design (moved database assets' logins) */
  targetOnly?: (key: string) => boolean
}

export async function verifyCopy(
  src: { docs: DocStore; control: ControlStore; keys: JWK[] },
  dst: { docs: DocStore; control: ControlStore; keys: KeyTarget },
  o: VerifyOptions = {},
): Promise<VerifyReport> {
  const same = (r: ControlRecord) => r
  const none = () => false
  const mismatches: string[] = []
  const [srcIds, dstIds] = [await allIds(src.docs), await allIds(dst.docs)]
  if (srcIds.length !== dstIds.length)
    mismatches.push(`documents: ${srcIds.length} in the data dir, ${dstIds.length} in the database`)
  const missing = srcIds.filter((id) => !new Set(dstIds).has(id))
  if (missing.length)
    mismatches.push(
      `documents missing from the database: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ' ...' : ''}`,
    )
  let logEntries = 0
  for (const id of srcIds) {
    if (missing.includes(id)) continue
    const [a, b] = [await digest(src.docs, id), await digest(dst.docs, id)]
    logEntries += a.entries
    for (const field of ['stateVector', 'text', 'snapshotSeq', 'lastSeq', 'entries', 'log', 'meta'] as const) {
      if (a[field] !== b[field]) mismatches.push(`document ${id}: ${field} differs`)
    }
  }

  let controlRecords = 0
  const it = records(dst.control, same, o.targetOnly ?? none)[Symbol.asyncIterator]()
  let next = await it.next()
  for await (const r of records(src.control, o.transform ?? same, none)) {
    controlRecords++
    while (!next.done && bytewise(next.value.key, r.key) < 0) {
      mismatches.push(`control record ${next.value.key}: only in the database`)
      next = await it.next()
    }
    if (next.done || next.value.key !== r.key) mismatches.push(`control record ${r.key}: missing from the database`)
    else {
      if (next.value.json !== r.json) mismatches.push(`control record ${r.key}: value differs`)
      next = await it.next()
    }
  }
  for (; !next.done; next = await it.next()) mismatches.push(`control record ${next.value.key}: only in the database`)

  const kids = new Set((await dst.keys.read()).map((k) => k.kid))
  for (const k of src.keys) if (!kids.has(k.kid!)) mismatches.push(`signing key ${k.kid}: missing from the database`)
  return { documents: srcIds.length, logEntries, controlRecords, keys: src.keys.length, mismatches }
}
