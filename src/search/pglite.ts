// The embedded engine: a PGlite database of its own under the data dir (`search/`), in a worker
// thread like the database assets' (PGlite blocks the thread it runs on). PostgreSQL's own
// full-text search in process: the same SQL and the same answers as on --postgres-url, no second
// engine to keep in step. A statement past the deadline stops the worker; the next one reopens it.
import { mkdir } from 'node:fs/promises'
import { PgliteInstance } from '../database-assets/pglite/instance.js'
import type { SearchDb } from './db.js'
import { SCHEMA_SQL } from './sql.js'

export interface PgliteSearchOptions {
  dir: string
  deadlineMs: number
  sharedBuffersMb: number
}

export class PgliteSearchDb implements SearchDb {
  readonly engine = 'pglite'
  private instance: Promise<PgliteInstance> | undefined
  private closed = false

  private constructor(private readonly o: PgliteSearchOptions) {}

  static async open(o: PgliteSearchOptions): Promise<PgliteSearchDb> {
    await mkdir(o.dir, { recursive: true })
    const db = new PgliteSearchDb(o)
    await db.ready()
    return db
  }

  private ready(): Promise<PgliteInstance> {
    if (this.closed) return Promise.reject(new Error('search index closed'))
    this.instance ??= (async () => {
      const instance = await PgliteInstance.open({
        dataDir: this.o.dir,
        deadlineMs: this.o.deadlineMs,
        sharedBuffersMb: this.o.sharedBuffersMb,
      })
      instance.onExit(() => (this.instance = undefined))
      await instance.script(SCHEMA_SQL)
      return instance
    })().catch((err: unknown) => {
      this.instance = undefined
      throw err
    })
    return this.instance
  }

  async query(sql: string, params: readonly (string | null)[]): Promise<unknown[][]> {
    return (await (await this.ready()).query(sql, params)).rows
  }

  /**
   * PGlite is single-user PostgreSQL: no autovacuum, so replaced rows are reclaimed (and the planner's statistics kept)
   * here.
   */
  async maintain(): Promise<void> {
    await (await this.ready()).script('VACUUM (ANALYZE) search_blocks_v1')
  }

  async close(): Promise<void> {
    this.closed = true
    const instance = await this.instance?.catch(() => undefined)
    await instance?.close()
  }
}
