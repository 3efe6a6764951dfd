// The document storage backends a socket-level suite runs over: LevelDB in the data dir, and a
// real PostgreSQL started once per test file (on first use) with a fresh schema per server.
import { afterAll } from 'vitest'
import type { Config } from '../../src/infra/config.js'
import { startPostgres, type PgServer } from './postgres.js'

export interface Backend {
  name: 'leveldb' | 'postgres'
  /** settings for one more server on this backend (a fresh schema on postgres) */
  overrides(): Promise<Partial<Config>>
}

let pg: Promise<PgServer> | undefined
let schemas = 0

/** This file's PostgreSQL server, started on first use and stopped after the file's tests. */
export function testPostgres(): Promise<PgServer> {
  return (pg ??= startPostgres())
}

afterAll(async () => {
  const server = pg
  pg = undefined
  await (await server)?.close()
})

const LEVELDB: Backend = { name: 'leveldb', overrides: async () => ({}) }

const POSTGRES: Backend = {
  name: 'postgres',
  async overrides() {
    const server = await testPostgres()
    return { postgresUrl: server.url, postgresSchema: `tandem_t${++schemas}` }
  },
}

export const BACKENDS: Backend[] = [LEVELDB, POSTGRES]
