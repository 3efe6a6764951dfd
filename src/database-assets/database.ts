// One asset's database as routes, the admin command and the demo seed use it: statements go through
// the registry (availability, gate), table shapes come from the asset's schema cache.
import { listTablesStatement, parseTables, type CatalogStatement } from './catalog.js'
import type { SqlResult } from './instance.js'
import type { SchemaCache } from './schema-cache.js'
import type { TableInfo, TableSummary } from './table-info.js'

/** What the registry hands a Database for one entry. */
export interface DatabaseParts {
  provider: string
  schema: SchemaCache
  run(stmt: CatalogStatement): Promise<SqlResult>
  json(stmt: CatalogStatement): Promise<string>
  script(sql: string): Promise<void>
  ready(): Promise<void>
}

export class Database {
  constructor(private readonly parts: DatabaseParts) {}

  get provider(): string {
    return this.parts.provider
  }

  /** Runs a compiled statement and returns the JSON text it produces. */
  json(stmt: CatalogStatement): Promise<string> {
    return this.parts.json(stmt)
  }

  run(stmt: CatalogStatement): Promise<SqlResult> {
    return this.parts.run(stmt)
  }

  /** Runs an operator's SQL script (several statements; `tandem admin databases sql`). Never request input. */
  script(sql: string): Promise<void> {
    return this.parts.script(sql)
  }

  /** Waits until the database is open, however long that takes (seeding, warm-up, tests). */
  ready(): Promise<void> {
    return this.parts.ready()
  }

  table(name: string): Promise<TableInfo | null> {
    return this.parts.schema.table(name)
  }

  reloadTable(name: string): Promise<TableInfo | null> {
    return this.parts.schema.reloadAfterMiss(name)
  }

  forgetTable(name?: string): void {
    this.parts.schema.invalidate(name)
  }

  async tables(schemas: readonly string[]): Promise<TableSummary[]> {
    return parseTables(await this.parts.json(listTablesStatement(schemas)))
  }
}
