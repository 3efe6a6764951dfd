// Shapes of the database endpoints (spec 2.1, 2.2, 4.1-4.3).
import { z } from 'zod'

export const DatabaseParams = z.object({ asset_id: z.string() })
export const TableParams = z.object({ asset_id: z.string(), table_name: z.string() })

// Only the scalar parameters are declared (and validated the FastAPI way); `select`, `order` and
// the column filters are parsed from the raw query string by query/params.ts.
export const ReadRowsQuery = z.object({
  select: z.string().optional().describe('comma-separated columns to return: `id,name`, `*`, `alias:column`'),
  order: z.string().optional().describe('`column.asc|desc[.nullsfirst|.nullslast]`, comma-separated'),
  limit: z.int().min(0).default(100).describe('maximum rows returned (capped by the server setting max-limit)'),
  offset: z.int().min(0).default(0).describe('rows skipped'),
})

export const Row = z.record(z.string(), z.unknown()).meta({ id: 'TableRow' })

const DatabaseTableInfo = z
  .object({
    name: z.string(),
    row_count: z.int().nullable().optional().describe('approximate (planner estimate)'),
    schema: z.string().default('public'),
  })
  .meta({ id: 'DatabaseTableInfo' })

export const ListTablesResponse = z
  .object({ tables: z.array(DatabaseTableInfo) })
  .meta({ id: 'DatabaseTablesResponse' })
export const ReadRowsResponse = z.object({ data: z.array(Row) }).meta({ id: 'DatabaseRowsResponse' })

export const InsertDataRequest = z
  .object({
    data: z.union([Row, z.array(Row)]).describe('one row object or an array of row objects'),
    return_representation: z.boolean().default(false),
  })
  .meta({ id: 'InsertDataRequest' })

export const InsertDataResponse = z.object({ data: z.array(Row).nullable() }).meta({ id: 'InsertDataResponse' })
