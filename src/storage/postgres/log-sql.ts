// The document log's statements on PostgreSQL (tables in src/pg/migrations.ts) and how their rows
// map to the store's entries and back: store.ts runs them.
import type { AppendedSeqs, AppendWrite, Attributes, StoredUpdate, UpdateEntry } from '../doc-store.js'
import type { Assigned } from './assign-seqs.js'

export const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
export const bytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

export interface Row {
  doc_id: string
  seq: string
  user_id: string
  at_ms: string
  body: Buffer
  attrs: Attributes | null
}

/** A log row as the store's entry: attributions only when the row has some. */
export function storedOf(r: Row): StoredUpdate {
  const u: StoredUpdate = { seq: Number(r.seq), user: r.user_id, at: Number(r.at_ms), update: bytes(r.body) }
  if (r.attrs) u.attrs = r.attrs
  return u
}

// Entries under the caller's seqs (one process per document: single node, migration copy); the
// head row follows, so a later cluster node assigns after them.
export const APPEND_SQL = `
  WITH ins AS (
    INSERT INTO doc_updates (doc_id, seq, user_id, at_ms, body, attrs)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::bytea[], $6::jsonb[])
    RETURNING doc_id, seq
  )
  INSERT INTO doc_heads AS dh (doc_id, last_seq)
    SELECT doc_id, max(seq) FROM ins GROUP BY doc_id ORDER BY doc_id COLLATE "C"
  ON CONFLICT (doc_id) DO UPDATE SET last_seq = GREATEST(dh.last_seq, excluded.last_seq)`

// kind 0: the snapshot (if any); kind 1: log entries after it. One statement, one consistent read.
export const LOAD_SQL = `
  WITH s AS (SELECT seq, at_ms, state FROM doc_snapshots WHERE doc_id = $1)
  SELECT 0 AS kind, seq, at_ms, NULL::text AS user_id, state AS body, NULL::jsonb AS attrs FROM s
  UNION ALL
  SELECT 1, u.seq, u.at_ms, u.user_id, u.body, u.attrs FROM doc_updates u
   WHERE u.doc_id = $1 AND u.seq > COALESCE((SELECT seq FROM s), 0)
  ORDER BY kind, seq`

// Deletes only when the snapshot covers uptoSeq; answers the snapshot's seq either way.
export const PRUNE_SQL = `
  WITH s AS (SELECT seq FROM doc_snapshots WHERE doc_id = $1),
  d AS (DELETE FROM doc_updates WHERE doc_id = $1 AND seq <= $2 AND EXISTS (SELECT 1 FROM s WHERE s.seq >= $2))
  SELECT (SELECT seq FROM s) AS snap`

// Ids from the log by a loose index scan (one probe per document, not per entry), plus snapshots.
export const LIST_SQL = `
  WITH RECURSIVE ids AS (
    (SELECT doc_id FROM doc_updates WHERE doc_id >= $1 AND ($2::text IS NULL OR doc_id < $2) ORDER BY doc_id LIMIT 1)
    UNION ALL
    SELECT (SELECT u.doc_id FROM doc_updates u WHERE u.doc_id > ids.doc_id AND ($2::text IS NULL OR u.doc_id < $2) ORDER BY u.doc_id LIMIT 1)
      FROM ids WHERE ids.doc_id IS NOT NULL
  )
  SELECT doc_id FROM ids WHERE doc_id IS NOT NULL AND starts_with(doc_id, $1)
  UNION
  SELECT doc_id FROM doc_snapshots WHERE doc_id >= $1 AND ($2::text IS NULL OR doc_id < $2) AND starts_with(doc_id, $1)
  ORDER BY 1`

// Every table that holds a document's rows, in one statement (one transaction).
export const ERASE_SQL = `
  WITH u AS (DELETE FROM doc_updates WHERE doc_id = $1),
  s AS (DELETE FROM doc_snapshots WHERE doc_id = $1),
  m AS (DELETE FROM doc_meta WHERE doc_id = $1)
  DELETE FROM doc_heads WHERE doc_id = $1`

/**
 * The least string above every string starting with `prefix`, under bytewise (COLLATE "C")
 * order: the last code point incremented. UTF-8 byte order is code point order. null: no bound.
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix]
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!
    let next = last + 1
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000 // surrogates are not characters
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next)
  }
  return null
}

export interface PendingRow extends UpdateEntry {
  docId: string
  seq: number
}

/** jsonb gives keys back in its own order: compared as maps. */
export function sameAttrs(a: Attributes | null | undefined, b: Attributes | undefined): boolean {
  const ka = Object.keys(a ?? {})
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => a![k] === b?.[k])
}

/** Attributions as a jsonb parameter: null when there are none. */
const attrsJson = (attrs: Attributes | undefined): string | null => (attrs ? JSON.stringify(attrs) : null)

/** The rows as the six parallel arrays unnest() takes. */
export function columns(rows: PendingRow[]): unknown[] {
  return [
    rows.map((r) => r.docId),
    rows.map((r) => String(r.seq)),
    rows.map((r) => r.user),
    rows.map((r) => String(r.at)),
    rows.map((r) => buf(r.update)),
    rows.map((r) => attrsJson(r.attrs)),
  ]
}

/**
 * Per write, the seqs it got: a cycle's writes of one document (normally one) were numbered in
 * order, so each takes the next slice of its document's range.
 */
export function seqsPerWrite(writes: AppendWrite[], assigned: Assigned[]): AppendedSeqs[] {
  const next = new Map(assigned.map((a) => [a.docId, a.firstSeq]))
  return writes.map(({ docId, entries }) => {
    const first = next.get(docId) ?? 0
    next.set(docId, first + entries.length)
    return { docId, firstSeq: first, lastSeq: first + entries.length - 1 }
  })
}
