// Appends whose seqs the database assigns, for cluster mode (several nodes appending to one
// document; docs/cluster.md, "Sequences"). One statement per write cycle: it bumps each
// document's head row (taking its row lock until commit, in doc_id order so two cycles cannot
// deadlock) and inserts the entries under the seqs just reserved. A failed statement rolls the
// heads back with the rows, so committed seqs are always a dense prefix 1..head: a hole seen on
// the bus is a message not yet received, never a seq that will not exist.
//
// PgDocStore.appendMany uses it for writes without firstSeq (cluster mode).
import type { StoreMark, UpdateEntry } from '../doc-store.js'
import { withMarks } from './marks-sql.js'
import { statementName } from './prepared.js'

/** One statement; `name` keeps it prepared on the connection (prepared.ts), as pg's query config does. */
export interface Statement {
  text: string
  values: unknown[]
  name?: string
}

/** A pool, or a store's one-statement runner: each call is one statement on its own. */
export interface Queryable {
  query<R extends object>(statement: Statement): Promise<{ rows: R[] }>
}

export interface AssignWrite {
  docId: string
  entries: UpdateEntry[]
}

/** Seqs a cycle got for one document: firstSeq..lastSeq, in the order of its entries. */
export interface Assigned {
  docId: string
  firstSeq: number
  lastSeq: number
}

const APPEND_SQL = `
  WITH w AS (
    SELECT * FROM unnest($1::text[], $2::bigint[]) AS w(doc_id, n)
  ), h AS (
    INSERT INTO doc_heads AS dh (doc_id, last_seq)
      SELECT doc_id, n FROM w ORDER BY doc_id COLLATE "C"
    ON CONFLICT (doc_id) DO UPDATE SET last_seq = dh.last_seq + excluded.last_seq
    RETURNING dh.doc_id, dh.last_seq
  ), ins AS (
    INSERT INTO doc_updates (doc_id, seq, user_id, at_ms, body, cycle, attrs)
      SELECT e.doc_id, h.last_seq - w.n + e.idx, e.user_id, e.at_ms, e.body, $8, e.attrs
        FROM unnest($3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::bytea[], $9::jsonb[]) AS e(doc_id, idx, user_id, at_ms, body, attrs)
        JOIN w USING (doc_id) JOIN h USING (doc_id)
  )
  SELECT h.doc_id, h.last_seq, w.n FROM h JOIN w USING (doc_id)`

const FIND_SQL = `
  SELECT doc_id, min(seq) AS first_seq, max(seq) AS last_seq FROM doc_updates WHERE cycle = $1 GROUP BY doc_id`

const buf = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)

/**
 * Appends one write cycle (documents may repeat; their entries keep their order) in one
 * statement and returns the seqs assigned per document, in doc_id order. `cycleId` must be unique in the cluster
 * (node id + counter): a caller that lost the answer asks findCycle before retrying.
 */
export async function appendAssigningSeqs(
  pool: Queryable,
  writes: AssignWrite[],
  cycleId: string,
  marks: readonly StoreMark[] = [],
): Promise<Assigned[]> {
  const perDoc = new Map<string, UpdateEntry[]>()
  for (const w of writes) {
    if (w.entries.length === 0) continue
    const list = perDoc.get(w.docId)
    if (list) list.push(...w.entries)
    else perDoc.set(w.docId, [...w.entries])
  }
  if (perDoc.size === 0) return []
  const docs: string[] = []
  const counts: string[] = []
  const eDoc: string[] = []
  const eIdx: string[] = []
  const eUser: string[] = []
  const eAt: string[] = []
  const eBody: Buffer[] = []
  const eAttrs: (string | null)[] = []
  // Sorted here too (ids are ASCII, so JS order is bytewise): the statement locks heads in this order.
  for (const [docId, entries] of [...perDoc].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    docs.push(docId)
    counts.push(String(entries.length))
    entries.forEach((e, i) => {
      eDoc.push(docId)
      eIdx.push(String(i + 1))
      eUser.push(e.user)
      eAt.push(String(e.at))
      eBody.push(buf(e.update))
      eAttrs.push(e.attrs ? JSON.stringify(e.attrs) : null)
    })
  }
  // The statement of every write cycle in cluster mode: prepared once per connection.
  const [text, values] = withMarks(APPEND_SQL, [docs, counts, eDoc, eIdx, eUser, eAt, eBody, cycleId, eAttrs], marks)
  const { rows } = await pool.query<{ doc_id: string; last_seq: string; n: string }>({
    name: statementName(text),
    text,
    values,
  })
  const byDoc = new Map(rows.map((r) => [r.doc_id, r]))
  return docs.map((docId) => {
    const r = byDoc.get(docId)!
    const last = Number(r.last_seq)
    return { docId, firstSeq: last - Number(r.n) + 1, lastSeq: last }
  })
}

/** The seqs a cycle got if it committed (its answer was lost), or null if it did not. */
export async function findCycle(pool: Queryable, cycleId: string): Promise<Assigned[] | null> {
  const { rows } = await pool.query<{ doc_id: string; first_seq: string; last_seq: string }>({
    text: FIND_SQL,
    values: [cycleId],
  })
  if (rows.length === 0) return null
  return rows.map((r) => ({ docId: r.doc_id, firstSeq: Number(r.first_seq), lastSeq: Number(r.last_seq) }))
}
