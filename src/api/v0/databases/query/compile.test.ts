import { describe, expect, it } from 'vitest'
import type { ColumnInfo, TableInfo } from '../../../../database-assets/table-info.js'
import { compileInsert } from './compile-insert.js'
import { compileRead } from './compile-read.js'
import { QueryError } from './errors.js'
import { parseReadParams } from './params.js'

const col = (name: string, type = 'text', extra: Partial<ColumnInfo> = {}): [string, ColumnInfo] => [
  name,
  {
    name,
    type,
    category: type.endsWith('[]') ? 'A' : 'S',
    json: type === 'jsonb' || type === 'json',
    hasDefault: false,
    notNull: false,
    ...extra,
  },
]
const table: TableInfo = {
  schema: 'public',
  name: 'items',
  kind: 'r',
  columns: new Map([
    col('id', 'integer', { hasDefault: true }),
    col('name'),
    col('tags', 'text[]'),
    col('meta', 'jsonb'),
    col('we"ird'),
  ]),
}
const read = (qs: string) =>
  compileRead(table, parseReadParams(new URLSearchParams(qs), { maxLimit: 1000, maxLogicDepth: 64 }))
const WRAP = (inner: string) =>
  `SELECT coalesce('[' || string_agg(row_to_json(_rows.*)::text, ',') || ']', '[]') FROM (${inner}) _rows`

describe('compileRead', () => {
  it('expands * to quoted columns and binds limit and offset', () => {
    expect(read('')).toEqual({
      text: WRAP('SELECT "id", "name", "tags", "meta", "we""ird" FROM "public"."items" LIMIT $1 OFFSET $2'),
      values: ['100', '0'],
    })
  })
  it('binds every filter value and quotes every column', () => {
    const s = read(
      'select=n:name&name=like.a*&id=in.(1,2)&or=(id.eq.3,and(name.is.null,id.not.gt.4))&order=id.desc.nullslast,name',
    )
    expect(s.text).toBe(
      WRAP(
        'SELECT "name" AS "n" FROM "public"."items" WHERE "name" LIKE $1 AND "id" IN ($2, $3) AND ("id" = $4 OR ("name" IS NULL AND NOT ("id" > $5)))' +
          ' ORDER BY "id" DESC NULLS LAST, "name" LIMIT $6 OFFSET $7',
      ),
    )
    expect(s.values).toEqual(['a%', '1', '2', '3', '4', '100', '0'])
  })
  it('compiles an empty in-list to false and negation to NOT', () => {
    expect(read('id=not.in.()').text).toContain('WHERE NOT (false)')
    expect(read('not.or=(id.eq.1,id.eq.2)').text).toContain('WHERE NOT (("id" = $1 OR "id" = $2))')
  })
  it('refuses a column the table does not have, naming the parameter', () => {
    for (const [qs, param] of [
      ['select=id,nope', 'select'],
      ['order=nope', 'order'],
      ['nope=eq.1', 'nope'],
      ['or=(id.eq.1,nope.eq.2)', 'or'],
      ['select=id;drop table items', 'select'],
    ] as const) {
      try {
        read(qs)
        expect.unreachable(qs)
      } catch (e) {
        expect(e).toBeInstanceOf(QueryError)
        expect((e as QueryError).param).toBe(param)
        expect((e as QueryError).status).toBe(400)
      }
    }
  })
})

describe('compileInsert', () => {
  it('uses the union of keys and DEFAULT for a missing one', () => {
    const s = compileInsert(
      table,
      [{ name: 'a' }, { id: 7, tags: ['x', 'y"z', null], meta: { k: [1] } }, { name: null, meta: 'str' }],
      false,
    )
    expect(s).toEqual({
      text: 'INSERT INTO "public"."items" ("name", "id", "tags", "meta") VALUES ($1, DEFAULT, DEFAULT, DEFAULT), (DEFAULT, $2, $3, $4), ($5, DEFAULT, DEFAULT, $6)',
      values: ['a', '7', '{"x","y\\"z",NULL}', '{"k":[1]}', null, '"str"'],
    })
  })
  it('returns the inserted rows as JSON when asked', () => {
    expect(compileInsert(table, [{ id: 1 }], true)?.text).toBe(
      `WITH _inserted AS (INSERT INTO "public"."items" ("id") VALUES ($1) RETURNING *) SELECT coalesce('[' || string_agg(row_to_json(_inserted.*)::text, ',') || ']', '[]') FROM _inserted`,
    )
  })
  it('inserts all-default rows through the first column', () => {
    expect(compileInsert(table, [{}, {}], false)?.text).toBe(
      'INSERT INTO "public"."items" ("id") VALUES (DEFAULT), (DEFAULT)',
    )
  })
  it('does nothing for no rows and refuses unknown columns', () => {
    expect(compileInsert(table, [], true)).toBeNull()
    expect(() => compileInsert(table, [{ id: 1 }, { 'id); drop table items; --': 1 }], false)).toThrow(/does not exist/)
  })
})
