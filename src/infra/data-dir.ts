// What lives where under --data-dir, in one place, and the one way its LevelDB is opened. Every
// part names its file or folder through DATA_DIR; only the backend (src/backend/) opens the LevelDB
// for a server or a command.
import { join } from 'node:path'
import { Level } from 'level'

export const DATA_DIR = {
  /** LevelDB: documents, history, versions and the control plane, each in its own sublevel */
  db: 'db',
  /** one PGlite directory per embedded database asset */
  pglite: 'pglite',
  /** the search index: a PGlite directory of its own (src/search/) */
  search: 'search',
  /** the signing keys generated on first start (JWKS) */
  signingKeys: 'signing-keys.json',
  /** the running server's loopback admin endpoint (`tandem admin` goes through it) */
  adminEndpoint: 'admin-endpoint.json',
  /** the demo world's site list */
  demoSites: 'demo-sites.json',
} as const

export function dataDirPath(dataDir: string, part: keyof typeof DATA_DIR): string {
  return join(dataDir, DATA_DIR[part])
}

/** The data dir's one LevelDB; each part takes its own sublevel. */
export type RootDb = Level<string, unknown>

export interface OpenDataDirOptions {
  /** false: the LevelDB must exist already (a copy's source is never created) */
  createIfMissing?: boolean
  /** what to tell the operator when it cannot be opened (another process holds it, ...) */
  hint?: string
}

export async function openDataDirDb(dataDir: string, o: OpenDataDirOptions = {}): Promise<RootDb> {
  const path = dataDirPath(dataDir, 'db')
  const db = new Level<string, unknown>(path, { valueEncoding: 'json' }) as RootDb
  try {
    await db.open({ createIfMissing: o.createIfMissing ?? true })
  } catch (err) {
    const hint = o.hint ?? 'is another tandem process using this data dir?'
    throw new Error(`cannot open ${path}: ${hint} (${(err as Error).message})`)
  }
  return db
}
