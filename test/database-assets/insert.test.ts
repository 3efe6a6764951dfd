// Inserting rows through the API, against PGlite and a real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROVIDERS, seed, startDbWorld, type DbWorld, type Provider } from './fixture.js'

let w: DbWorld

beforeAll(async () => {
  w = await startDbWorld('insert', { maxInsertRows: 20, maxBodyBytes: 64 * 1024 })
  await Promise.all(PROVIDERS.map((p) => seed(w, p)))
})
afterAll(() => w?.close())

const count = async (p: Provider, table: string) =>
  JSON.parse(await w.rowsJson(p, `SELECT count(*)::int AS n FROM ${table}`))[0].n as number

describe.each(PROVIDERS)('%s: inserting rows', (p) => {
  const url = (table: string) => `/api/v0/databases/${w.assets[p].id}/data/${table}`

  it('inserts one object and returns nothing unless asked', async () => {
    const r = await w.api('POST', url('authors'), { body: { data: { id: 10, name: 'Eve' } } })
    expect(r).toMatchObject({ status: 200, body: { data: null } })
    expect(await w.rowsJson(p, 'SELECT * FROM authors WHERE id = 10')).toBe('[{"id":10,"name":"Eve","country":null}]')
  })

  it('takes the union of keys, with DEFAULT for a missing key and NULL for an explicit null', async () => {
    const r = await w.api('POST', url('books'), {
      body: {
        data: [
          {
            title: 'first',
            in_print: null,
            tags: ['a', 'b "c"', null],
            meta: { k: [1, 'two'] },
            big: '9007199254740993',
          },
          { title: 'second', price: 12.5, published: '2020-02-29', 'odd name': 'x' },
          { title: 'third', meta: 'a json string' },
        ],
        return_representation: true,
      },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    const rows = r.body.data
    expect(rows).toHaveLength(3)
    expect(rows.map((x: { title: string }) => x.title)).toEqual(['first', 'second', 'third'])
    expect(rows[0]).toMatchObject({
      in_print: null,
      tags: ['a', 'b "c"', null],
      meta: { k: [1, 'two'] },
      price: null,
      created: '2024-01-01T00:00:00+00:00',
    })
    expect(rows[1]).toMatchObject({ in_print: true, price: 12.5, published: '2020-02-29', 'odd name': 'x', tags: null })
    expect(rows[2]).toMatchObject({ meta: 'a json string', in_print: true })
    expect(rows[0].id).toBeLessThan(rows[1].id)
    // the big integer keeps every digit in the database and in the raw response
    expect(await w.rowsJson(p, `SELECT big::text AS big FROM books WHERE title = 'first'`)).toBe(
      '[{"big":"9007199254740993"}]',
    )
  })

  it('stores numbers past what a double holds with every digit: in a column, inside JSON, in an array', async () => {
    // raw text: JSON.stringify in the test would round them before they were sent
    const body =
      '{"data": {"title": "exact", "big": 9007199254740993, "meta": {"n": 12345678901234567890, "f": 0.5}, "tags": [18446744073709551615]}}'
    const r = await w.api('POST', url('books'), { body })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(
      await w.rowsJson(
        p,
        `SELECT big::text AS big, meta->>'n' AS n, jsonb_typeof(meta->'n') AS nt, meta->'f' AS f, tags[1] AS tag FROM books WHERE title = 'exact'`,
      ),
    ).toBe('[{"big":"9007199254740993","n":"12345678901234567890","nt":"number","f":0.5,"tag":"18446744073709551615"}]')
  })

  it('accepts an empty array and all-default rows', async () => {
    expect(await w.api('POST', url('books'), { body: { data: [], return_representation: true } })).toMatchObject({
      status: 200,
      body: { data: [] },
    })
    const before = await count(p, 'bookings')
    const r = await w.api('POST', url('bookings'), { body: { data: [{}, {}], return_representation: true } })
    expect(r.status).toBe(200)
    expect(r.body.data).toHaveLength(2)
    expect(await count(p, 'bookings')).toBe(before + 2)
  })

  it('answers 409 with the database message and detail for each kind of constraint, inserting nothing', async () => {
    const cases: [string, object, RegExp][] = [
      [
        'authors',
        {
          data: [
            { id: 20, name: 'New' },
            { id: 1, name: 'Dup id' },
          ],
        },
        /duplicate key value violates unique constraint "authors_pkey": Key \(id\)=\(1\) already exists/,
      ],
      [
        'books',
        { data: [{ title: 'ok' }, { title: 'orphan', author_id: 999 }] },
        /violates foreign key constraint .*Key \(author_id\)=\(999\) is not present/,
      ],
      [
        'books',
        { data: [{ title: 'ok' }, { title: 'negative', price: -1 }] },
        /violates check constraint "books_price_check"/,
      ],
      [
        'books',
        { data: [{ title: 'ok' }, { title: null }] },
        /null value in column "title" .*violates not-null constraint/,
      ],
      [
        'bookings',
        { data: [{ during: '[2024-01-01,2024-01-05)' }, { during: '[2024-01-03,2024-01-04)' }] },
        /conflicting key value violates exclusion constraint/,
      ],
    ]
    for (const [table, body, message] of cases) {
      const before = await count(p, table)
      const r = await w.api('POST', url(table), { body })
      expect(r.status, JSON.stringify(r.body)).toBe(409)
      expect(r.body.detail).toMatch(message)
      expect(await count(p, table)).toBe(before)
    }
  })

  it('answers 400 for a bad value or an unknown column, inserting nothing', async () => {
    const before = await count(p, 'books')
    const bad = await w.api('POST', url('books'), { body: { data: [{ title: 'a' }, { title: 'b', pages: 'many' }] } })
    expect(bad.status).toBe(400)
    expect(bad.body.detail).toMatch(/invalid input syntax for type integer: "many"/)
    const unknown = await w.api('POST', url('books'), { body: { data: { title: 'a', colour: 'red' } } })
    expect(unknown.status).toBe(400)
    expect(unknown.body.detail).toMatch(/"colour"/)
    expect((await w.api('POST', url('slow'), { body: { data: { x: 2 } } })).status).toBe(400)
    expect(await count(p, 'books')).toBe(before)
  })

  it('answers 404 for an unknown table', async () => {
    expect((await w.api('POST', url('nothere'), { body: { data: { a: 1 } } })).status).toBe(404)
    expect((await w.api('POST', url('hidden.secrets'), { body: { data: { id: 2 } } })).status).toBe(404)
  })

  it('enforces max rows per insert with a pydantic too_long 422', async () => {
    const rows = Array.from({ length: 21 }, (_, i) => ({ title: `bulk ${i}` }))
    const r = await w.api('POST', url('books'), { body: { data: rows } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0]).toMatchObject({
      type: 'too_long',
      loc: ['body', 'data'],
      ctx: { max_length: 20, actual_length: 21 },
    })
    expect((await w.api('POST', url('books'), { body: { data: rows.slice(0, 20) } })).status).toBe(200)
  })

  it('enforces the body size limit with a 413', async () => {
    const r = await w.api('POST', url('books'), { body: { data: { title: 'x'.repeat(70 * 1024) } } })
    expect(r.status).toBe(413)
  })

  it('validates the body the FastAPI way', async () => {
    expect((await w.api('POST', url('books'), { body: { rows: [] } })).body.detail[0]).toMatchObject({
      type: 'missing',
      loc: ['body', 'data'],
    })
    expect((await w.api('POST', url('books'), { body: '{"data": [' })).body.detail[0]).toMatchObject({
      type: 'json_invalid',
    })
    const r = await w.api('POST', url('books'), { body: { data: { title: 'x' }, return_representation: 'maybe' } })
    expect(r.status).toBe(422)
    expect(r.body.detail[0]).toMatchObject({ type: 'bool_parsing', loc: ['body', 'return_representation'] })
    expect((await w.api('POST', url('books'), { body: { data: 'text' } })).status).toBe(422)
  })
})
