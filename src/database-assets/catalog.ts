// Catalog statements: the tables of the exposed schemas, and the columns of one table. Both return
// one JSON text value. Only tables, partitioned tables, views, materialized views and foreign tables
// of the exposed schemas exist for callers.
import type { ColumnInfo, TableInfo, TableSummary } from './table-info.js'

export interface CatalogStatement {
  text: string
  values: (string | null)[]
}

const RELKINDS = `c.relkind IN ('r', 'p', 'v', 'm', 'f')`

/** A text[] literal with every element quoted, for binding the exposed schema list. */
function textArray(items: readonly string[]): string {
  return '{' + items.map((s) => '"' + s.replace(/[\\"]/g, '\\$&') + '"').join(',') + '}'
}

// Planner statistics only, never a count. As the planner does: reltuples scaled to the table's
// current size; for a table never analysed (reltuples < 0; PGlite runs no autovacuum) its pages
// times the rows a page holds at the columns' type widths (32 bytes for variable-length types, plus
// tuple header and line pointer); 0 for an empty table; null when there is nothing to go on.
const PAGES = `(pg_relation_size(c.oid) / current_setting('block_size')::numeric)`
const TYPE_WIDTH = `(SELECT coalesce(sum(CASE WHEN t.typlen > 0 THEN t.typlen ELSE 32 END), 0)
      FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)`
const ROW_ESTIMATE = `CASE
    WHEN c.reltuples >= 0 AND c.relpages > 0 THEN round(c.reltuples / c.relpages * ${PAGES})::bigint
    WHEN c.relkind IN ('r', 'm') AND pg_relation_size(c.oid) = 0 THEN 0
    WHEN c.reltuples >= 0 AND c.relkind IN ('r', 'm', 'p') THEN c.reltuples::bigint
    WHEN c.relkind IN ('r', 'm') THEN round(${PAGES} * (current_setting('block_size')::int - 24) / (${TYPE_WIDTH} + 28))::bigint
    ELSE NULL END`

export function listTablesStatement(schemas: readonly string[]): CatalogStatement {
  return {
    text: `SELECT coalesce(json_agg(json_build_object('name', c.relname, 'row_count', ${ROW_ESTIMATE}, 'schema', n.nspname)
        ORDER BY array_position($1::text[], n.nspname::text), c.relname), '[]')::text
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${RELKINDS} AND n.nspname = ANY($1::text[])
        AND (has_table_privilege(c.oid, 'SELECT') OR has_table_privilege(c.oid, 'INSERT'))`,
    values: [textArray(schemas)],
  }
}

/**
 * Candidates for a table name as given in the path: `name` in any exposed schema (first schema
 * first), or `schema.name` spelled out.
 */
export function tableStatement(schemas: readonly string[], name: string): CatalogStatement {
  const dot = name.indexOf('.')
  return {
    text: `SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', c.relname, 'kind', c.relkind, 'columns', (
          SELECT coalesce(json_agg(json_build_object(
              'name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'category', t.typcategory,
              'json', t.typname IN ('json', 'jsonb'),
              'hasDefault', a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '',
              'notNull', a.attnotnull) ORDER BY a.attnum), '[]')
            FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
            WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped))
        ORDER BY c.relname::text <> $2::text, array_position($1::text[], n.nspname::text)), '[]')::text
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${RELKINDS} AND n.nspname = ANY($1::text[]) AND (c.relname::text = $2::text OR (n.nspname::text = $3::text AND c.relname::text = $4::text))`,
    values: [textArray(schemas), name, dot > 0 ? name.slice(0, dot) : null, dot > 0 ? name.slice(dot + 1) : null],
  }
}

interface RawTable {
  schema: string
  name: string
  kind: string
  columns: ColumnInfo[]
}

export function parseTable(jsonText: unknown): TableInfo | null {
  const candidates = JSON.parse(String(jsonText)) as RawTable[]
  const t = candidates[0]
  if (!t) return null
  return { schema: t.schema, name: t.name, kind: t.kind, columns: new Map(t.columns.map((c) => [c.name, c])) }
}

export function parseTables(jsonText: unknown): TableSummary[] {
  return JSON.parse(String(jsonText)) as TableSummary[]
}
