// ReadQuery + TableInfo -> one parameterised SELECT whose single text result is the JSON array of
// rows, built by the database (row_to_json), so both providers answer byte-identical JSON and big
// integers or numerics keep every digit.
import type { TableInfo } from '../../../../database-assets/table-info.js'
import type { Condition, ReadQuery } from '@tandem/api/query'
import { QueryError } from './errors.js'
import { ident, jsonRows, Params, qualified, type Statement } from './sql.js'

const COMPARE_SQL = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  ilike: 'ILIKE',
} as const
const IS_SQL = {
  null: 'IS NULL',
  not_null: 'IS NOT NULL',
  true: 'IS TRUE',
  false: 'IS FALSE',
  unknown: 'IS UNKNOWN',
} as const

export function compileRead(table: TableInfo, q: ReadQuery): Statement {
  const p = new Params()
  const column = (name: string, param: string): string => {
    if (!table.columns.has(name))
      throw new QueryError(param, `column ${JSON.stringify(name)} does not exist in ${JSON.stringify(table.name)}`)
    return ident(name)
  }

  const list: string[] = []
  for (const item of q.select) {
    if (item.kind === 'star') for (const name of table.columns.keys()) list.push(ident(name))
    else list.push(column(item.column, 'select') + (item.alias === undefined ? '' : ' AS ' + ident(item.alias)))
  }

  const condition = (c: Condition): string => {
    let sql: string
    switch (c.kind) {
      case 'compare':
        sql = `${column(c.column, c.param)} ${COMPARE_SQL[c.op]} ${p.add(c.value)}`
        break
      case 'in':
        sql =
          c.values.length === 0
            ? 'false'
            : `${column(c.column, c.param)} IN (${c.values.map((v) => p.add(v)).join(', ')})`
        break
      case 'is':
        sql = `${column(c.column, c.param)} ${IS_SQL[c.value]}`
        break
      case 'logic':
        sql = '(' + c.children.map(condition).join(c.op === 'and' ? ' AND ' : ' OR ') + ')'
    }
    return c.negate ? `NOT (${sql})` : sql
  }
  const where = q.where.map(condition)

  const order = q.order.map((t) => {
    let sql = column(t.column, 'order')
    if (t.direction) sql += t.direction === 'asc' ? ' ASC' : ' DESC'
    if (t.nulls) sql += t.nulls === 'first' ? ' NULLS FIRST' : ' NULLS LAST'
    return sql
  })

  let inner = `SELECT ${list.join(', ')} FROM ${qualified(table.schema, table.name)}`
  if (where.length) inner += ` WHERE ${where.join(' AND ')}`
  if (order.length) inner += ` ORDER BY ${order.join(', ')}`
  inner += ` LIMIT ${p.add(String(q.limit))} OFFSET ${p.add(String(q.offset))}`
  return { text: `SELECT ${jsonRows('_rows')} FROM (${inner}) _rows`, values: p.values }
}
