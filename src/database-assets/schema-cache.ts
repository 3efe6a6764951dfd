// Per-database cache of table shapes, so a read costs one statement, not two. Entries expire after a
// while; a request naming a column the cached shape lacks reloads the shape once before failing
// (concurrent reloads of one table share a statement); unknown tables are remembered only briefly;
// the errors "undefined table/column" from the database drop the entry at once.
import { parseTable, tableStatement, type CatalogStatement } from './catalog.js'
import type { TableInfo } from './table-info.js'

const TTL_MS = 30_000
const UNKNOWN_TABLE_TTL_MS = 1_000
const MAX_ENTRIES = 1_000

interface Entry {
  info: TableInfo | null
  at: number
}

export class SchemaCache {
  private readonly tables = new Map<string, Entry>()
  private readonly loading = new Map<string, Promise<TableInfo | null>>()

  constructor(
    private readonly schemas: readonly string[],
    private readonly run: (s: CatalogStatement) => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The table named in a request path, or null when no exposed schema has it. */
  async table(name: string): Promise<TableInfo | null> {
    const hit = this.tables.get(name)
    if (hit && this.now() - hit.at < (hit.info ? TTL_MS : UNKNOWN_TABLE_TTL_MS)) return hit.info
    return this.load(name)
  }

  /** After a miss against a cached shape (unknown column): the shape as the database has it now. */
  reloadAfterMiss(name: string): Promise<TableInfo | null> {
    return this.load(name)
  }

  invalidate(name?: string): void {
    if (name === undefined) this.tables.clear()
    else this.tables.delete(name)
  }

  private load(name: string): Promise<TableInfo | null> {
    let p = this.loading.get(name)
    if (!p) {
      p = (async () => {
        const info = parseTable(await this.run(tableStatement(this.schemas, name)))
        if (this.tables.size >= MAX_ENTRIES) this.tables.clear()
        this.tables.set(name, { info, at: this.now() })
        return info
      })().finally(() => this.loading.delete(name))
      this.loading.set(name, p)
    }
    return p
  }
}
