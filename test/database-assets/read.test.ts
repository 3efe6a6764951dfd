// Reading rows and listing tables, the same suite against PGlite and a real PostgreSQL: every API
// answer is compared byte for byte with what the equivalent hand-written SQL returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asset, grant } from '../api/helpers.js'
import { PROVIDERS, seed, startDbWorld, type DbWorld } from './fixture.js'

let w: DbWorld

beforeAll(async () => {
  w = await startDbWorld('read', { maxLimit: 50 })
  await Promise.all(PROVIDERS.map((p) => seed(w, p)))
})
afterAll(() => w?.close())

const qs = (pairs: [string, string][]) => new URLSearchParams(pairs).toString()

// [query parameters, table, hand-written SQL]
const CASES: [string, [string, string][], string, string][] = [
  ['all columns ordered', [['order', 'id']], 'books', 'SELECT * FROM books ORDER BY id LIMIT 50'],
  [
    'a column list, descending, limited',
    [
      ['select', 'id,title'],
      ['order', 'id.desc'],
      ['limit', '5'],
    ],
    'books',
    'SELECT id, title FROM books ORDER BY id DESC LIMIT 5',
  ],
  [
    'an alias and lt',
    [
      ['select', 'name:title,id'],
      ['id', 'lt.5'],
      ['order', 'id'],
    ],
    'books',
    'SELECT title AS name, id FROM books WHERE id < 5 ORDER BY id',
  ],
  [
    'repeated keys AND and nulls last',
    [
      ['price', 'gt.20'],
      ['price', 'lte.50'],
      ['order', 'price.desc.nullslast,id'],
    ],
    'books',
    'SELECT * FROM books WHERE price > 20 AND price <= 50 ORDER BY price DESC NULLS LAST, id LIMIT 50',
  ],
  [
    'like with * wildcards',
    [
      ['select', 'id,title'],
      ['title', 'like.*the*'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title LIKE '%the%' ORDER BY id`,
  ],
  [
    'ilike',
    [
      ['select', 'id,title'],
      ['title', 'ilike.*THE*'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title ILIKE '%THE%' ORDER BY id`,
  ],
  [
    'like with a literal %',
    [
      ['select', 'id,title'],
      ['title', 'like.100% pure*'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title LIKE '100% pure%' ORDER BY id`,
  ],
  [
    'in',
    [
      ['select', 'id'],
      ['author_id', 'in.(1,3)'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE author_id IN (1, 3) ORDER BY id',
  ],
  [
    'in with quoted values',
    [
      ['select', 'id,name'],
      ['name', 'in.("Cleo, the \\"quoted\\"",Bob)'],
      ['order', 'id'],
    ],
    'authors',
    `SELECT id, name FROM authors WHERE name IN ('Cleo, the "quoted"', 'Bob') ORDER BY id`,
  ],
  [
    'not in',
    [
      ['select', 'id'],
      ['id', 'not.in.(1,2,3)'],
      ['order', 'id'],
      ['limit', '3'],
    ],
    'books',
    'SELECT id FROM books WHERE NOT (id IN (1, 2, 3)) ORDER BY id LIMIT 3',
  ],
  ['an empty in-list', [['id', 'in.()']], 'books', 'SELECT * FROM books WHERE false'],
  [
    'is.null',
    [
      ['select', 'id,published'],
      ['published', 'is.null'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id, published FROM books WHERE published IS NULL ORDER BY id',
  ],
  [
    'is.not_null',
    [
      ['select', 'id'],
      ['published', 'is.not_null'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE published IS NOT NULL ORDER BY id',
  ],
  [
    'is.true',
    [
      ['select', 'id'],
      ['in_print', 'is.true'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE in_print IS TRUE ORDER BY id',
  ],
  [
    'not.is.false',
    [
      ['select', 'id'],
      ['in_print', 'not.is.false'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE NOT (in_print IS FALSE) ORDER BY id',
  ],
  [
    'is.unknown',
    [
      ['select', 'id'],
      ['in_print', 'is.unknown'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE in_print IS UNKNOWN ORDER BY id',
  ],
  [
    'an or-tree with a nested and',
    [
      ['select', 'id'],
      ['or', '(pages.lt.100,and(price.gt.40,in_print.is.true))'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE pages < 100 OR (price > 40 AND in_print IS TRUE) ORDER BY id',
  ],
  [
    'not.or',
    [
      ['select', 'id'],
      ['not.or', '(author_id.eq.1,author_id.is.null)'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE NOT (author_id = 1 OR author_id IS NULL) ORDER BY id',
  ],
  [
    'an or-tree with quoted values',
    [
      ['select', 'id'],
      ['or', '(title.eq."the end, or not 1",title.eq.plain 9)'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id FROM books WHERE title = 'the end, or not 1' OR title = 'plain 9' ORDER BY id`,
  ],
  [
    'and with a negated comparison',
    [
      ['select', 'id'],
      ['and', '(id.gt.10,id.not.gte.15)'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE id > 10 AND NOT (id >= 15) ORDER BY id',
  ],
  [
    'limit and offset',
    [
      ['select', 'id'],
      ['order', 'id'],
      ['limit', '5'],
      ['offset', '10'],
    ],
    'books',
    'SELECT id FROM books ORDER BY id LIMIT 5 OFFSET 10',
  ],
  [
    'nulls first',
    [
      ['select', 'id,published'],
      ['order', 'published.asc.nullsfirst,id'],
    ],
    'books',
    'SELECT id, published FROM books ORDER BY published ASC NULLS FIRST, id LIMIT 50',
  ],
  [
    'a bigint past 2^53 keeps every digit',
    [
      ['select', 'id,big'],
      ['big', 'eq.9007199254740993'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id, big FROM books WHERE big = 9007199254740993 ORDER BY id',
  ],
  [
    'a column name with a space',
    [
      ['select', 'id,"odd name"'],
      ['"odd name"', 'eq.odd 1'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, "odd name" FROM books WHERE "odd name" = 'odd 1' ORDER BY id`,
  ],
  [
    'an array literal value',
    [
      ['select', 'id,tags'],
      ['tags', 'eq.{t1,"x,y"}'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, tags FROM books WHERE tags = '{t1,"x,y"}' ORDER BY id`,
  ],
  [
    'a jsonb value',
    [
      ['select', 'id,meta'],
      ['meta', 'eq.{"s": "v2", "n": 2}'],
    ],
    'books',
    `SELECT id, meta FROM books WHERE meta = '{"n": 2, "s": "v2"}'`,
  ],
  [
    'a backslash and a quote in values',
    [
      ['select', 'id,title'],
      ['title', "in.(Back\\slash 3,O'Brien's 8)"],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title IN ('Back\\slash 3', 'O''Brien''s 8') ORDER BY id`,
  ],
  [
    'escapes in a quoted in-list value',
    [
      ['select', 'id,title'],
      ['title', 'in.("Back\\\\slash 3","Quote \\"me\\" 2")'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title IN ('Back\\slash 3', 'Quote "me" 2') ORDER BY id`,
  ],
  [
    'dates',
    [
      ['select', 'id,published'],
      ['published', 'gte.2015-01-01'],
      ['published', 'lt.2018-01-01'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, published FROM books WHERE published >= '2015-01-01' AND published < '2018-01-01' ORDER BY id`,
  ],
  [
    'star plus an alias, timestamps',
    [
      ['select', '*,ident:id'],
      ['id', 'eq.1'],
    ],
    'books',
    'SELECT *, id AS ident FROM books WHERE id = 1',
  ],
  [
    'the other table, text order with nulls',
    [['order', 'country.desc.nullsfirst,id']],
    'authors',
    'SELECT * FROM authors ORDER BY country DESC NULLS FIRST, id',
  ],
  ['a view', [], 'slow', 'SELECT * FROM slow'],
  // PostgREST compatibility: a quote that does not close is a character (QuerySpec), and spaces
  // around the parentheses of logic trees are allowed while spaces touching a value stay in it
  // (AndOrParamsSpec "allows whitespace").
  [
    'a lone double quote in an in-list is the literal "',
    [
      ['select', 'id,title'],
      ['title', 'in.(")'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title IN ('"')`,
  ],
  [
    'unclosed and unseparated quotes in an in-list are characters',
    [
      ['select', 'id,title'],
      ['title', 'in.(",Quote "me" 2,"Quote "me" 12)'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title IN ('"', 'Quote "me" 2', '"Quote "me" 12') ORDER BY id`,
  ],
  [
    'spaces around logic parentheses and list items',
    [
      ['select', 'id'],
      ['and', '( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )'],
    ],
    'books',
    'SELECT id FROM books WHERE (id IN (1, 2, 3) AND id = 3) AND (id = 2 OR id = 3)',
  ],
  [
    'spaces touching a value stay in it',
    [
      ['select', 'id,title'],
      ['or', '( title.eq.plain 9 , title.eq.plain 19,title.in.( plain 29, plain 39,plain 49 ) )'],
      ['order', 'id'],
    ],
    'books',
    `SELECT id, title FROM books WHERE title = 'plain 9 ' OR title = 'plain 19' OR title IN ('plain 29', ' plain 39', 'plain 49 ') ORDER BY id`,
  ],
  [
    'not.and with a space before its parenthesis',
    [
      ['select', 'id'],
      ['not.and', ' (id.gt.3, id.lt.58 )'],
      ['order', 'id'],
    ],
    'books',
    'SELECT id FROM books WHERE NOT (id > 3 AND id < 58) ORDER BY id',
  ],
]

describe.each(PROVIDERS)('%s: reading rows', (p) => {
  it.each(CASES)('%s matches hand-written SQL', async (_name, pairs, table, sql) => {
    const r = await w.rawGet(`/api/v0/databases/${w.assets[p].id}/data/${table}?${qs(pairs)}`)
    expect(r.status, r.text).toBe(200)
    expect(r.headers.get('content-type')).toMatch(/^application\/json/)
    expect(r.text).toBe(`{"data":${await w.rowsJson(p, sql)}}`)
  })

  it('caps limit at max-limit and defaults to it when smaller than 100', async () => {
    const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/books?limit=5000`)
    expect(r.status).toBe(200)
    expect(r.body.data).toHaveLength(50)
  })

  it('names the offending parameter of an unknown column in a 400', async () => {
    for (const [q, param] of [
      ['select=id,nope', 'select'],
      ['nope=eq.1', 'nope'],
      ['order=nope.desc', 'order'],
      ['or=(id.eq.1,nope.eq.2)', 'or'],
    ]) {
      const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/books?${q}`)
      expect(r.status, q).toBe(400)
      expect(r.body.detail).toContain(`"${param}"`)
      expect(r.body.detail).toContain('nope')
    }
  })

  it('answers 400 for a bad operator, a bad value and an operator the column type lacks', async () => {
    const base = `/api/v0/databases/${w.assets[p].id}/data/books`
    const bad = await w.api('GET', `${base}?id=contains.1`)
    expect(bad).toMatchObject({ status: 400 })
    expect(bad.body.detail).toMatch(/"id".*unknown operator "contains"/)
    const value = await w.api('GET', `${base}?pages=eq.many`)
    expect(value.status).toBe(400)
    expect(value.body.detail).toMatch(/invalid input syntax for type integer/)
    expect((await w.api('GET', `${base}?pages=like.1*`)).status).toBe(400)
    expect((await w.api('GET', `${base}?in_print=is.maybe`)).status).toBe(400)
  })

  it('answers pydantic 422s for a non-integer or negative limit and offset', async () => {
    const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/books?limit=ten&offset=-1`)
    expect(r.status).toBe(422)
    expect(r.body.detail).toEqual([
      {
        type: 'int_parsing',
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: 'ten',
      },
      {
        type: 'greater_than_equal',
        loc: ['query', 'offset'],
        msg: 'Input should be greater than or equal to 0',
        input: '-1',
        ctx: { ge: 0 },
      },
    ])
  })

  it('treats unknown tables and tables outside the exposed schemas as missing', async () => {
    for (const t of [
      'missing',
      'secrets',
      'hidden.secrets',
      'pg_class',
      'pg_catalog.pg_class',
      'information_schema.tables',
    ]) {
      const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data/${t}`)
      expect(r.status, t).toBe(404)
      expect(r.body.detail).toMatch(/not found/)
    }
    const qualified = await w.api(
      'GET',
      `/api/v0/databases/${w.assets[p].id}/data/public.authors?select=id&order=id&limit=1`,
    )
    expect(qualified).toMatchObject({ status: 200, body: { data: [{ id: 1 }] } })
  })

  it('lists the exposed tables with planner row estimates', async () => {
    const r = await w.api('GET', `/api/v0/databases/${w.assets[p].id}/data`)
    expect(r.status).toBe(200)
    expect(r.body.tables).toEqual([
      { name: 'authors', row_count: 4, schema: 'public' },
      { name: 'bookings', row_count: 0, schema: 'public' },
      { name: 'books', row_count: 60, schema: 'public' },
      { name: 'slow', row_count: null, schema: 'public' },
    ])
  })

  it('sees columns added and dropped after the shape was cached', async () => {
    const base = `/api/v0/databases/${w.assets[p].id}/data/authors`
    expect((await w.api('GET', `${base}?select=id`)).status).toBe(200)
    await w.exec(p, 'ALTER TABLE authors ADD COLUMN born integer')
    expect(await w.api('GET', `${base}?select=id,born&id=eq.1`)).toMatchObject({
      status: 200,
      body: { data: [{ id: 1, born: null }] },
    })
    await w.exec(p, 'ALTER TABLE authors DROP COLUMN born')
    expect((await w.api('GET', `${base}?select=id,born`)).status).toBe(400)
    expect((await w.api('GET', `${base}?select=id`)).status).toBe(200)
  })
})

describe('access', () => {
  const rows = (id: string) => `/api/v0/databases/${id}/data/authors?select=id&order=id&limit=1`

  it('answers 404 for an unknown asset and 401 without an API key', async () => {
    expect((await w.api('GET', rows('as-nothing'))).status).toBe(404)
    expect((await w.api('GET', '/api/v0/databases/as-nothing/data')).status).toBe(404)
    expect((await w.api('GET', rows(w.assets.pglite.id), { key: '' })).status).toBe(401)
  })

  it('answers 403 without a grant, lets view read but not insert, and edit insert', async () => {
    for (const p of PROVIDERS) {
      const id = w.assets[p].id
      for (const role of ['owner', 'stranger'] as const) {
        expect((await w.api('GET', rows(id), { key: w.world.keys[role] })).status, role).toBe(403)
        expect((await w.api('GET', `/api/v0/databases/${id}/data`, { key: w.world.keys[role] })).status, role).toBe(403)
      }
      expect((await w.api('GET', rows(id), { key: w.world.keys.admin })).status).toBe(200)
      expect((await w.api('GET', `/api/v0/databases/${id}/data`, { key: w.world.keys.admin })).status).toBe(200)
      const denied = await w.api('POST', `/api/v0/databases/${id}/data/authors`, {
        key: w.world.keys.admin,
        body: { data: { id: 50, name: 'no' } },
      })
      expect(denied).toMatchObject({ status: 403, body: { detail: 'Access denied to database' } })
      expect(
        (await w.api('POST', `/api/v0/databases/${id}/data/authors`, { body: { data: { id: 50, name: `yes ${p}` } } }))
          .status,
      ).toBe(200)
    }
  })

  it('answers 400 for an asset that is not a database and 501 for an unsupported provider', async () => {
    await grant(w.h, w.world.doc.id, w.world.users.member, 'view')
    const notDb = await w.api('GET', rows(w.world.doc.id))
    expect(notDb).toMatchObject({ status: 400, body: { detail: 'Asset is not a database asset' } })
    const other = await asset(w.h, {
      workspaceId: w.world.workspaceId,
      type: 'database',
      title: 'mysql',
      database: { provider: 'mysql' },
    })
    await grant(w.h, other.id, w.world.users.member, 'edit')
    for (const [method, path] of [
      ['GET', `/api/v0/databases/${other.id}/data`],
      ['GET', rows(other.id)],
      ['POST', `/api/v0/databases/${other.id}/data/t`],
    ] as const) {
      const r = await w.api(method, path, method === 'POST' ? { body: { data: {} } } : {})
      expect(r.status, path).toBe(501)
      expect(r.body.detail).toMatch(/mysql/)
    }
  })

  it('never shows the connection URL', async () => {
    const replies = [
      await w.rawGet(`/api/v0/databases/${w.assets.postgres.id}/data`),
      await w.rawGet(`/api/v0/databases/${w.assets.postgres.id}/data/nothere`),
      await w.rawGet(`/api/v0/databases/${w.assets.postgres.id}/data/books?pages=eq.x`),
    ]
    for (const r of replies) expect(r.text).not.toMatch(/postgres:\/\/|127\.0\.0\.1/)
  })
})
