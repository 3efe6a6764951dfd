// The database tools: list_databases (the workspace's database assets the caller may view, with
// their tables, so read_table has names to use), read_table and insert_rows. Each maps onto the
// /api/v0 databases endpoints with the caller's own key; a database that cannot answer (starting,
// suspended: 503) is listed with its error instead of failing the whole list.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { McpTool } from '../control/tool-catalog.js'
import type { TandemApi } from './api.js'
import { structured } from './answer.js'
import { DATABASE_ID, limit, OFFSET, READ_ONLY, TABLE } from './params.js'

/** Databases per list_databases answer, and tables per database: each listed one is opened (woken). */
const DATABASES_PAGE = 20
const MAX_DATABASES_PAGE = 50
const MAX_TABLES = 200

/** Databases opened at once: a page of suspended ones wakes a few at a time, not all together. */
const OPEN_AT_ONCE = 4

async function inBatches<T, R>(items: T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += OPEN_AT_ONCE)
    out.push(...(await Promise.all(items.slice(i, i + OPEN_AT_ONCE).map(run))))
  return out
}

const ROWS = {
  data: z.array(z.record(z.string(), z.unknown())).describe('the rows, each an object of column -> value'),
}

const LIST_OUTPUT = {
  databases: z.array(
    z.object({
      asset_id: z.string(),
      title: z.string(),
      access: z.enum(['view', 'edit']).describe('edit: insert_rows is allowed; view: read only'),
      tables: z
        .array(
          z.object({
            name: z.string(),
            schema: z.string().optional(),
            row_count: z.number().nullable().optional().describe('approximate'),
          }),
        )
        .optional()
        .describe('absent when the database could not answer (see error)'),
      more_tables: z.number().optional().describe(`tables past the first ${MAX_TABLES}, not listed`),
      error: z
        .string()
        .optional()
        .describe('why the tables are not listed, e.g. "503: ..." while the database starts: ask again'),
    }),
  ),
  total: z.number().describe('database assets the caller may view'),
  next_offset: z.number().optional().describe('more follow: call again with offset = next_offset'),
}

export function registerDatabaseTools(server: McpServer, api: TandemApi, on: (t: McpTool) => boolean): void {
  if (on('list_databases')) {
    server.registerTool(
      'list_databases',
      {
        title: 'List databases',
        description:
          'The workspace\'s database assets the caller may view, each with its tables (name, schema, approximate row count): the asset_id and table names read_table and insert_rows take. To see a table\'s columns, read_table it with query "limit=1".',
        inputSchema: { offset: OFFSET, limit: limit(DATABASES_PAGE, MAX_DATABASES_PAGE) },
        outputSchema: LIST_OUTPUT,
        annotations: { title: 'List databases', ...READ_ONLY },
      },
      ({ offset = 0, limit = DATABASES_PAGE }) =>
        structured(async () => {
          const all = (await api.assets()).filter((a) => a.type === 'database')
          const page = all.slice(offset, offset + limit)
          const databases = await inBatches(page, async (a) => {
            const listed = { asset_id: a.id, title: a.title, access: a.access }
            try {
              const tables = await api.tables(a.id)
              const shown = tables.slice(0, MAX_TABLES).map((t) => ({
                name: t.name,
                ...(t.schema !== undefined ? { schema: t.schema } : {}),
                ...(t.row_count !== undefined ? { row_count: t.row_count } : {}),
              }))
              return {
                ...listed,
                tables: shown,
                ...(tables.length > MAX_TABLES ? { more_tables: tables.length - MAX_TABLES } : {}),
              }
            } catch (err) {
              return { ...listed, error: (err as Error).message }
            }
          })
          return {
            databases,
            total: all.length,
            ...(offset + limit < all.length ? { next_offset: offset + limit } : {}),
          }
        }),
    )
  }
  if (on('read_table')) {
    server.registerTool(
      'read_table',
      {
        title: 'Read table rows',
        description:
          'Reads rows of a table of a database asset (at most 100 unless `limit` says otherwise). Answers {data: [rows]}.',
        inputSchema: {
          asset_id: DATABASE_ID,
          table: TABLE,
          query: z
            .string()
            .optional()
            .describe(
              'A PostgREST query string: select=COLUMNS, COLUMN=OP.VALUE filters (eq, neq, gt, gte, lt, lte, like, ilike, in.(a,b), is.null), order=COLUMN.asc|desc, limit, offset. E.g. "select=id,name&status=eq.open&order=id.desc&limit=20".',
            ),
        },
        outputSchema: ROWS,
        annotations: { title: 'Read table rows', ...READ_ONLY },
      },
      ({ asset_id, table, query }) =>
        structured(() => api.readRows(asset_id, table, query ?? '') as Promise<Record<string, unknown>>),
    )
  }
  if (on('insert_rows')) {
    server.registerTool(
      'insert_rows',
      {
        title: 'Insert table rows',
        description:
          'Inserts rows into a table of a database asset (edit permission on it needed); all or none. Answers {data: [the inserted rows]} with the values the database gave them (ids, defaults).',
        inputSchema: {
          asset_id: DATABASE_ID,
          table: TABLE,
          rows: z
            .array(z.record(z.string(), z.unknown()))
            .min(1)
            .describe('The rows: objects of column -> value; columns left out take their default.'),
        },
        outputSchema: ROWS,
        // adds rows, never changes or removes one; each call adds them again
        annotations: {
          title: 'Insert table rows',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      ({ asset_id, table, rows }) =>
        structured(() => api.insertRows(asset_id, table, rows) as Promise<Record<string, unknown>>),
    )
  }
}
