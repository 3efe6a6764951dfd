// Injection attempts in every position of a read and an insert, on both providers: each one either
// runs as data (and finds nothing odd) or fails with 400/404, and the database is unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROVIDERS, seed, startDbWorld, type DbWorld, type Provider } from './fixture.js'

let w: DbWorld

beforeAll(async () => {
  w = await startDbWorld('inject')
  await Promise.all(
    PROVIDERS.map(async (p) => {
      await seed(w, p)
      await w.exec(p, 'CREATE TABLE canary (id integer PRIMARY KEY, note text)')
      await w.exec(p, `INSERT INTO canary VALUES (1, 'alive')`)
    }),
  )
})
afterAll(() => w?.close())

const DROP = `; DROP TABLE canary; --`

// [query string (raw, percent-encoded where needed), what may happen]
const READS: string[] = [
  // column names
  `select=id${encodeURIComponent(DROP)}`,
  `select=${encodeURIComponent('"id""; DROP TABLE canary; --"')}`,
  `select=${encodeURIComponent('id,(select note from canary)')}`,
  `select=${encodeURIComponent('x:id from canary; --')}`,
  `${encodeURIComponent('id; DROP TABLE canary')}=eq.1`,
  `${encodeURIComponent('"id\\"; DROP TABLE canary; --"')}=eq.1`,
  // values
  `title=eq.${encodeURIComponent(`'${DROP}`)}`,
  `title=eq.${encodeURIComponent(`x' OR '1'='1`)}`,
  `id=eq.${encodeURIComponent(`1${DROP}`)}`,
  `title=like.${encodeURIComponent(`*'${DROP}`)}`,
  `published=is.${encodeURIComponent(`null${DROP}`)}`,
  // order
  `order=${encodeURIComponent(`id${DROP}`)}`,
  `order=${encodeURIComponent('id.desc,(select 1)')}`,
  `order=${encodeURIComponent('id.desc; DROP TABLE canary')}`,
  // in-lists
  `id=in.${encodeURIComponent(`(1)${DROP}`)}`,
  `title=in.${encodeURIComponent(`("x\\"); DROP TABLE canary; --",y)`)}`,
  `title=in.${encodeURIComponent(`('${DROP}')`)}`,
  // logic trees
  `or=${encodeURIComponent(`(id.eq.1)${DROP}`)}`,
  `or=${encodeURIComponent(`(title.eq.x'),id.eq.1)`)}`,
  `or=${encodeURIComponent(`(id.eq.1,and(title.eq."a'); DROP TABLE canary; --",id.gt.0))`)}`,
  `and=${encodeURIComponent(`(id.eq.1;DROP TABLE canary,id.eq.2)`)}`,
  // NUL characters, which the wire protocol would treat as the end of the statement
  `select=${encodeURIComponent('id,x\u0000y:title')}`,
  `title=eq.${encodeURIComponent('a\u0000b')}`,
  `${encodeURIComponent('id\u0000')}=eq.1`,
  // limit / offset
  `limit=${encodeURIComponent(`1${DROP}`)}`,
  `offset=${encodeURIComponent('0 UNION SELECT 1')}`,
]

async function fingerprint(p: Provider): Promise<string> {
  return w.rowsJson(
    p,
    `SELECT c.relname, (SELECT count(*) FROM books) AS books, (SELECT string_agg(id || ':' || note, ',') FROM canary) AS canary
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname`,
  )
}

describe.each(PROVIDERS)('%s: injection attempts', (p) => {
  it.each(READS)('read %s runs as data or is refused, and changes nothing', async (query) => {
    const before = await fingerprint(p)
    const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/books?${query}`)
    expect([200, 400, 422], JSON.stringify(r.body)).toContain(r.status)
    if (r.status === 200) {
      // Only values reach the database, as data: nothing matched, or exactly what the filter says.
      for (const row of r.body.data) expect(JSON.stringify(row)).not.toMatch(/alive/)
    }
    expect(await fingerprint(p)).toBe(before)
  })

  it('treats a hostile table name in the path as an unknown table', async () => {
    const before = await fingerprint(p)
    for (const t of [`canary${DROP}`, 'canary"; DROP TABLE canary; --', "books' OR '1'='1", 'canary\u0000']) {
      const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/${encodeURIComponent(t)}`)
      expect([400, 404], t).toContain(r.status)
    }
    expect(await fingerprint(p)).toBe(before)
  })

  it('refuses hostile column names in an insert body and stores hostile values verbatim', async () => {
    const url = `/api/v0/databases/${w.assets[p].id}/data/canary`
    const before = await fingerprint(p)
    for (const key of [`note) VALUES ('x')${DROP}`, 'note" text); DROP TABLE canary; --']) {
      const r = await w.api('POST', url, { body: { data: { id: 5, [key]: 'x' } } })
      expect(r.status).toBe(400)
    }
    expect(await fingerprint(p)).toBe(before)
    const hostile = `'); DROP TABLE canary; -- \\ " $1 $$`
    const r = await w.api('POST', url, { body: { data: [{ id: 2, note: hostile }], return_representation: true } })
    expect(r).toMatchObject({ status: 200, body: { data: [{ id: 2, note: hostile }] } })
    const back = await w.api('GET', `${url}?id=eq.2`)
    expect(back.body.data).toEqual([{ id: 2, note: hostile }])
    const byValue = await w.api('GET', `${url}?note=eq.${encodeURIComponent(hostile)}&select=id`)
    expect(byValue.body.data).toEqual([{ id: 2 }])
  })
})
