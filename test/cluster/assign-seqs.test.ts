// Store-assigned seqs on a real PostgreSQL: two pools (two nodes) appending concurrently to the
// same documents, in different orders, get distinct dense seqs and never deadlock; a failed cycle
// leaves no hole; existing logs are backfilled into heads; a committed cycle is found by its id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applySchemaMigrations } from '../../src/pg/schema.js'
import { MIGRATIONS } from '../../src/pg/migrations.js'
import { createPgPool, type PgPool } from '../../src/pg/pool.js'
import { appendAssigningSeqs, findCycle } from '../../src/storage/postgres/assign-seqs.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'

let pgs: PgServer
const withHeads = MIGRATIONS
// the schema as it was before the heads migration (later migrations come after it, as they would)
const before = MIGRATIONS.filter((m) => m.version < MIGRATIONS.find((h) => h.name === 'doc-heads')!.version)

beforeAll(async () => {
  pgs = await startPostgres()
})
afterAll(async () => pgs?.close())

async function pools(db: string, n: number): Promise<PgPool[]> {
  const url = await pgs.createDatabase(db)
  const ps = Array.from({ length: n }, () => createPgPool({ url, schema: 'tandem', poolSize: 4 }))
  await applySchemaMigrations(ps[0]!, 'tandem', withHeads)
  return ps
}

const entry = (user: string, i: number) => ({ user, at: 1_000 + i, update: new Uint8Array([i % 256, 7]) })

describe('appendAssigningSeqs', () => {
  it('two nodes appending at once to the same documents get dense, distinct seqs without deadlocks', async () => {
    const [a, b] = await pools('seq_race', 2)
    try {
      const docs = ['o/a/main', 'o/b/main', 'o/c/main']
      let cycle = 0
      const node = async (pool: PgPool, name: string) => {
        const got: { docId: string; firstSeq: number; lastSeq: number; user: string }[] = []
        for (let i = 0; i < 40; i++) {
          // Each cycle touches the documents in a different order, two entries for one of them.
          const order = i % 2 ? [...docs].reverse() : docs
          const writes = order.map((docId, k) => ({
            docId,
            entries: k === 0 ? [entry(name, i), entry(name, i)] : [entry(name, i)],
          }))
          const assigned = await appendAssigningSeqs(pool, writes, `${name}:${cycle++}`)
          got.push(...assigned.map((x) => ({ ...x, user: name })))
        }
        return got
      }
      const results = (await Promise.all([node(a!, 'A'), node(a!, 'A2'), node(b!, 'B'), node(b!, 'B2')])).flat()
      for (const docId of docs) {
        const { rows } = await a!.query<{ seq: string; user_id: string }>(
          'SELECT seq, user_id FROM doc_updates WHERE doc_id = $1 ORDER BY seq',
          [docId],
        )
        const seqs = rows.map((r) => Number(r.seq))
        expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1))
        // Every range a cycle was told about holds that cycle's rows, and nobody else's.
        for (const r of results.filter((x) => x.docId === docId)) {
          const owners = rows
            .filter((row) => Number(row.seq) >= r.firstSeq && Number(row.seq) <= r.lastSeq)
            .map((row) => row.user_id)
          expect(new Set(owners)).toEqual(new Set([r.user]))
        }
        const head = await a!.query<{ last_seq: string }>('SELECT last_seq FROM doc_heads WHERE doc_id = $1', [docId])
        expect(Number(head.rows[0]!.last_seq)).toBe(seqs.length)
      }
      expect(results.reduce((n, r) => n + r.lastSeq - r.firstSeq + 1, 0)).toBe(4 * 40 * 4)
    } finally {
      await Promise.all([a!.end(), b!.end()])
    }
  })

  it('a failed cycle leaves no hole: the next one continues the dense prefix', async () => {
    const [p] = await pools('seq_fail', 1)
    try {
      await appendAssigningSeqs(p!, [{ docId: 'o/f/main', entries: [entry('u', 1)] }], 'c1')
      // user_id NOT NULL: fails in the database
      const bad = { user: null as unknown as string, at: 1, update: new Uint8Array([1]) }
      await expect(
        appendAssigningSeqs(p!, [{ docId: 'o/f/main', entries: [entry('u', 2), bad] }], 'c2'),
      ).rejects.toThrow()
      const next = await appendAssigningSeqs(p!, [{ docId: 'o/f/main', entries: [entry('u', 3)] }], 'c3')
      expect(next).toEqual([{ docId: 'o/f/main', firstSeq: 2, lastSeq: 2 }])
      expect(await findCycle(p!, 'c2')).toBeNull()
      expect(await findCycle(p!, 'c3')).toEqual([{ docId: 'o/f/main', firstSeq: 2, lastSeq: 2 }])
    } finally {
      await p!.end()
    }
  })

  it('the migration backfills heads from existing logs and snapshots', async () => {
    const url = await pgs.createDatabase('seq_backfill')
    const p = createPgPool({ url, schema: 'tandem', poolSize: 2 })
    try {
      await applySchemaMigrations(p, 'tandem', before) // the schema before heads, written the single-node way
      await p.query(
        `INSERT INTO doc_updates (doc_id, seq, user_id, at_ms, body) VALUES ('o/x/main', 1, 'u', 1, '\\x00'), ('o/x/main', 2, 'u', 1, '\\x00')`,
      )
      await p.query(`INSERT INTO doc_snapshots (doc_id, seq, at_ms, state) VALUES ('o/pruned/main', 9, 1, '\\x00')`)
      await applySchemaMigrations(p, 'tandem', withHeads)
      const got = await appendAssigningSeqs(
        p,
        [
          { docId: 'o/x/main', entries: [entry('u', 1)] },
          { docId: 'o/pruned/main', entries: [entry('u', 1)] },
          { docId: 'o/new/main', entries: [entry('u', 1)] },
        ],
        'c',
      )
      expect(got).toEqual([
        { docId: 'o/new/main', firstSeq: 1, lastSeq: 1 },
        { docId: 'o/pruned/main', firstSeq: 10, lastSeq: 10 },
        { docId: 'o/x/main', firstSeq: 3, lastSeq: 3 },
      ])
    } finally {
      await p.end()
    }
  })
})
