// What the query compiler needs to know about one table (or view): its qualified name and its
// columns in ordinal order. Built from the catalog by schema-cache.ts.

export interface ColumnInfo {
  name: string
  /** format_type() of the column, e.g. `integer`, `character varying(20)`, `jsonb`, `text[]` */
  type: string
  /** pg_type.typcategory: `A` array, `N` numeric, `S` string, `B` boolean, `U` user (json) ... */
  category: string
  /** json or jsonb: a JSON value is stored as its JSON text */
  json: boolean
  /** has a DEFAULT, an identity or is generated: an insert may leave it out */
  hasDefault: boolean
  notNull: boolean
}

export interface TableInfo {
  schema: string
  name: string
  /** pg_class.relkind: r table, p partitioned, v view, m materialized view, f foreign */
  kind: string
  columns: ReadonlyMap<string, ColumnInfo>
}

export interface TableSummary {
  name: string
  /** planner estimate (pg_class.reltuples scaled to the current size), null when unknown */
  row_count: number | null
  schema: string
}
