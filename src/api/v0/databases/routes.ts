// GET /databases/{asset_id}/data                list tables
// GET /databases/{asset_id}/data/{table_name}   read rows (PostgREST-style query string)
// POST /databases/{asset_id}/data/{table_name}  insert rows
// Order of checks: 422 (validation), then the asset (404, 403, 400 not a database, 501), then the
// query string (400), and only then the database, so a bad request never wakes a suspended one.
// Rows travel as the JSON text the database built.
import type { Context } from 'koa'
import type { Database } from '../../../database-assets/registry.js'
import { isDbError } from '../../../database-assets/db-error.js'
import type { TableInfo } from '../../../database-assets/table-info.js'
import { AppError } from '../../../infra/errors.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, ValidationFailed, type RouteDef } from '../../route.js'
import { openDatabase } from './access.js'
import { sqlFailure } from './db-errors.js'
import { compileInsert, type Row } from './query/compile-insert.js'
import { compileRead } from './query/compile-read.js'
import { parseReadParams } from './query/params.js'
import type { Statement } from './query/sql.js'
import { rowsInserted } from '../../../webhooks/emit.js'
import {
  DatabaseParams,
  InsertDataRequest,
  InsertDataResponse,
  ListTablesResponse,
  ReadRowsQuery,
  ReadRowsResponse,
  TableParams,
} from '@tandem/api/v0/databases'

const ERRORS = {
  400: 'invalid request (e.g. the asset is not a database asset, bad filter)',
  403: 'access denied to database',
  404: 'database asset (or table) not found',
  501: 'provider not supported',
  503: 'database unavailable (starting, suspended, saturated, unreachable); see Retry-After',
}

export function databaseRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { config } = deps
  const { store } = control
  const registry = deps.databases

  /** The table named in the path (404 when no exposed schema has it), from the schema cache or fresh. */
  async function tableOf(db: Database, name: string, fresh = false): Promise<TableInfo> {
    let t: TableInfo | null
    try {
      t = await (fresh ? db.reloadTable(name) : db.table(name))
    } catch (e) {
      throw mapSql(db, name, e)
    }
    if (!t) throw new AppError('not_found', `Table ${JSON.stringify(name)} not found`)
    return t
  }

  /** Compiles against the cached shape; a miss (unknown column) is retried once on a fresh shape. */
  async function compile<T>(db: Database, name: string, build: (t: TableInfo) => T): Promise<T> {
    const table = await tableOf(db, name)
    try {
      return build(table)
    } catch (e) {
      if (!(e instanceof AppError) || e.status !== 400) throw e
      return build(await tableOf(db, name, true))
    }
  }

  async function runJson(db: Database, name: string, stmt: Statement): Promise<string> {
    try {
      return await db.json(stmt)
    } catch (e) {
      throw mapSql(db, name, e)
    }
  }

  function mapSql(db: Database, name: string, e: unknown): unknown {
    if (!isDbError(e) || e.kind !== 'sql') return e
    if (e.sql?.code === '42P01' || e.sql?.code === '42703') db.forgetTable(name)
    return sqlFailure(e, config.dbRetryAfterSec)
  }

  const sendRows = (ctx: Context, json: string) => {
    ctx.type = 'application/json'
    ctx.body = `{"data":${json}}`
  }

  return [
    defineRoute({
      method: 'get',
      path: '/databases/:asset_id/data',
      operationId: 'list_database_tables',
      summary: 'List tables',
      tags: ['databases'],
      params: DatabaseParams,
      response: ListTablesResponse,
      errors: ERRORS,
      async handler(_ctx, { params, user }) {
        const db = await openDatabase(store, registry, user, params.asset_id, 'view')
        try {
          return { tables: await db.tables(config.dbSchemas) }
        } catch (e) {
          throw mapSql(db, '', e)
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/databases/:asset_id/data/:table_name',
      operationId: 'read_database_rows',
      summary: 'Read rows',
      tags: ['databases'],
      params: TableParams,
      query: ReadRowsQuery,
      response: ReadRowsResponse,
      errors: ERRORS,
      async handler(ctx, { params, query, user }) {
        const db = await openDatabase(store, registry, user, params.asset_id, 'view')
        const q = parseReadParams(new URLSearchParams(ctx.querystring), {
          maxLimit: config.maxLimit,
          maxLogicDepth: config.maxFilterDepth,
          limit: query.limit,
          offset: query.offset,
        })
        const stmt = await compile(db, params.table_name, (t) => compileRead(t, q))
        sendRows(ctx, await runJson(db, params.table_name, stmt))
      },
    }),
    defineRoute({
      method: 'post',
      path: '/databases/:asset_id/data/:table_name',
      operationId: 'insert_database_rows',
      summary: 'Insert rows',
      tags: ['databases'],
      params: TableParams,
      body: InsertDataRequest,
      // a bigint or numeric past what a double holds is stored with every digit
      exactNumbers: true,
      response: InsertDataResponse,
      errors: {
        ...ERRORS,
        409: 'constraint violation reported by the database; the detail carries its message',
        413: 'request body too large',
      },
      async handler(ctx, { params, body, user }) {
        const rows: Row[] = Array.isArray(body.data) ? body.data : [body.data]
        if (rows.length > config.maxInsertRows) {
          throw new ValidationFailed([
            {
              type: 'too_long',
              loc: ['body', 'data'],
              msg: `List should have at most ${config.maxInsertRows} items after validation, not ${rows.length}`,
              input: body.data,
              ctx: { field_type: 'List', max_length: config.maxInsertRows, actual_length: rows.length },
            },
          ])
        }
        const db = await openDatabase(store, registry, user, params.asset_id, 'edit')
        const stmt = await compile(db, params.table_name, (t) => compileInsert(t, rows, body.return_representation))
        if (!stmt) return { data: body.return_representation ? [] : null }
        const inserted = () =>
          rowsInserted({ store, log: deps.log, now: deps.now }, params.asset_id, params.table_name, rows.length)
        if (body.return_representation) {
          const json = await runJson(db, params.table_name, stmt)
          await inserted()
          return sendRows(ctx, json)
        }
        try {
          await db.run(stmt)
        } catch (e) {
          throw mapSql(db, params.table_name, e)
        }
        await inserted()
        return { data: null }
      },
    }),
  ]
}
