// `node --import tsx bench/versions.ts [--storage leveldb|postgres] [--mb 1] [--runs 9]`
// What a named version costs for a document of about `mb` MB: POST /versions (flush, encode the
// full state, one durable write) and GET /versions/{id} (octet-stream and JSON/base64), each the
// median of `runs` calls over real HTTP, as ratios against the baseline of GET /ydoc (octet-stream)
// of the same document on the same server. PostgreSQL is a real server started like the tests'.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { mintToken } from '../src/auth/capability.js'
import { loadConfig } from '../src/infra/config.js'
import { createServer } from '../src/compose/server.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { num, parseFlags } from './lib/args.js'

const flags = parseFlags(process.argv.slice(2))
const storage = flags.get('storage') ?? 'leveldb'
const mb = num(flags, 'mb') ?? 1
const runs = num(flags, 'runs') ?? 9

/** About `mb` MB of prose typed by three clients in 1 KB paragraphs, as one update. */
function bigDocument(): Uint8Array {
  const doc = new Y.Doc()
  const writers = [0, 1, 2].map(() => new Y.Doc())
  const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(18) // ~1 KB
  for (let i = 0; i < mb * 1000; i++) {
    const w = writers[i % 3]!
    Y.applyUpdate(w, Y.encodeStateAsUpdate(doc, Y.encodeStateVector(w)))
    w.getText('t').insert(w.getText('t').length, paragraph + '\n')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(w, Y.encodeStateVector(doc)))
  }
  return Y.encodeStateAsUpdate(doc)
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-versions-'))
  const pg = storage === 'postgres' ? await startPostgres() : null
  const config = loadConfig(
    [],
    {},
    {
      dataDir: dir,
      collabPort: 0,
      apiPort: 0,
      logLevel: 'silent',
      ...(pg ? { postgresUrl: pg.url, postgresSchema: 'bench_versions' } : {}),
    },
  )
  const server = await createServer(config, { api: false })
  try {
    const base = `http://127.0.0.1:${server.collabPort}`
    const { token } = await mintToken(server.deps.keys, {
      org: 'bench',
      doc: 'big',
      sub: 'bench',
      acc: 'rw',
      ttlSec: 3600,
    })
    const update = bigDocument()
    const patched = await fetch(`${base}/ydoc/v1/bench/big?yauth=${token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: update,
    })
    if (patched.status !== 200) throw new Error(`PATCH ${patched.status}`)
    const get = async (path: string, accept: string) => {
      const res = await fetch(`${base}/${path}?yauth=${token}`, { headers: { accept } })
      if (res.status !== 200) throw new Error(`GET ${path} ${res.status}`)
      return res.arrayBuffer()
    }
    const ids: string[] = []
    const create = async () => {
      const res = await fetch(`${base}/versions/v1/bench/big?yauth=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `v${ids.length}` }),
      })
      if (res.status !== 201) throw new Error(`POST versions ${res.status}`)
      ids.push(((await res.json()) as { id: string }).id)
    }
    await get('ydoc/v1/bench/big', 'application/octet-stream') // warm: the room is loaded
    await create()
    const ydoc: number[] = []
    const creates: number[] = []
    const readsRaw: number[] = []
    const readsJson: number[] = []
    for (let i = 0; i < runs; i++) {
      ydoc.push(await timed(() => get('ydoc/v1/bench/big', 'application/octet-stream')))
      creates.push(await timed(create))
      readsRaw.push(await timed(() => get(`versions/v1/bench/big/${ids[i]}`, 'application/octet-stream')))
      readsJson.push(await timed(() => get(`versions/v1/bench/big/${ids[i]}`, 'application/json')))
    }
    const list = await timed(() => get('versions/v1/bench/big', 'application/json'))
    const baseline = median(ydoc)
    const round = (x: number) => Math.round(x * 100) / 100
    const result = {
      storage,
      docBytes: update.length,
      runs,
      ydocGetMs: round(baseline),
      versionCreateMs: round(median(creates)),
      versionReadOctetMs: round(median(readsRaw)),
      versionReadJsonMs: round(median(readsJson)),
      listMs: round(list),
      versions: ids.length,
      createVsYdocGet: round(median(creates) / baseline),
      readOctetVsYdocGet: round(median(readsRaw) / baseline),
      readJsonVsYdocGet: round(median(readsJson) / baseline),
    }
    process.stdout.write(JSON.stringify(result) + '\n')
  } finally {
    await server.close()
    await pg?.close()
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
