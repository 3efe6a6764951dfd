// `node --import tsx bench/search.ts [--storage leveldb|postgres] [--docs 10000] [--kb 5] [--queries 300]
//   [--rate 200] [--hot 1000] [--seconds 20] [--save]`
// Workspace search (src/search/, docs/search.md) in one process, as the tests run a server: `docs`
// documents of about `kb` KB of text each (words drawn with a Zipf law from a vocabulary, so some
// words are everywhere and most are rare) written through the rooms, indexed by the server itself;
// then query latency over HTTP (words, two words, a phrase, a prefix: p50/p95), the index's size on
// disk against the text's, and the CPU indexing takes while `rate` committed updates a second land
// on `hot` documents: the process's CPU with --search-index on minus the same load with it off.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { execFileSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { createApiKey } from '../src/control/api-keys.js'
import { createAsset, type Asset } from '../src/control/assets.js'
import { createUser } from '../src/control/users.js'
import { createWorkspace } from '../src/control/workspaces.js'
import { loadConfig, type Config } from '../src/infra/config.js'
import { createServer, type TandemServer } from '../src/compose/server.js'
import { startPostgres, type PgServer } from '../test/helpers/postgres.js'
import { num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'

const flags = parseFlags(process.argv.slice(2))
const storage = flags.get('storage') ?? 'leveldb'
const DOCS = num(flags, 'docs') ?? 10_000
const KB = num(flags, 'kb') ?? 5
const QUERIES = num(flags, 'queries') ?? 300
const RATE = num(flags, 'rate') ?? 200
const HOT = Math.min(num(flags, 'hot') ?? 1000, DOCS)
const SECONDS = num(flags, 'seconds') ?? 20
const log = (l: string) => process.stderr.write(`${l}\n`)

// a deterministic vocabulary and word stream: runs compare
let seed = 42
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
const VOCAB = Array.from({ length: 20_000 }, (_, i) => {
  const syl = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'pe', 'da', 'gu', 'fi', 'ho', 'be', 'zo', 'ql']
  let w = ''
  for (let n = i + 1; n > 0; n = Math.floor(n / 16)) w += syl[n % 16]
  return w
})
const zipf = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(rand() * Math.log(VOCAB.length))) - 1)]!
const sentence = (words: number) => Array.from({ length: words }, zipf).join(' ') + '.'

/** About `KB` KB of paragraphs (a heading every 8), as one update, and the text's length. */
function docUpdate(): { update: Uint8Array; chars: number; phrase: string } {
  const doc = new Y.Doc()
  const frag = doc.getXmlFragment('default')
  let chars = 0
  let phrase = ''
  for (let i = 0; chars < KB * 1000; i++) {
    const el = new Y.XmlElement(i % 8 === 0 ? 'heading' : 'paragraph')
    const text = i % 8 === 0 ? sentence(4) : sentence(40)
    if (i === 1) phrase = text.split(' ').slice(3, 5).join(' ')
    el.insert(0, [new Y.XmlText(text)])
    frag.insert(frag.length, [el])
    chars += text.length
  }
  const update = Y.encodeStateAsUpdate(doc)
  doc.destroy()
  return { update, chars, phrase }
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!
const du = (path: string) => Number(execFileSync('du', ['-sb', path]).toString().split('\t')[0])

async function start(
  dataDir: string,
  pg: PgServer | null,
  searchIndex: 'on' | 'off',
  schema: string,
): Promise<{ server: TandemServer; config: Config }> {
  const config = loadConfig(
    [],
    {},
    {
      dataDir,
      collabPort: 0,
      apiPort: 0,
      logLevel: 'warn',
      searchIndex,
      ...(pg ? { postgresUrl: pg.url, postgresSchema: schema } : {}),
    },
  )
  return { server: await createServer(config), config }
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 200))
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-search-'))
  const pg = storage === 'postgres' ? await startPostgres({ durable: true }) : null
  try {
    const { server } = await start(join(dir, 'data'), pg, 'on', 'bench_search')
    const { store } = server.deps.control
    const user = 'bench@example.com'
    await createUser(store, user, undefined, Date.now())
    const key = (await createApiKey(store, user, 'bench', Date.now())).key
    const ws = await createWorkspace(store, { name: 'bench', owner: user }, Date.now())
    const assets: Asset[] = []
    const phrases: string[] = []
    let textChars = 0
    const t0 = performance.now()
    const cpu0 = process.cpuUsage()
    for (let i = 0; i < DOCS; i++) {
      const a = await createAsset(
        store,
        { workspaceId: ws.id, type: 'generic_doc', title: `${sentence(3)} ${i}`, defaultAccess: 'view' },
        Date.now(),
      )
      const d = docUpdate()
      await server.deps.docs.applyUpdate({ org: ws.id, doc: a.id }, d.update, user)
      assets.push(a)
      phrases.push(d.phrase)
      textChars += d.chars
      if (i % 1000 === 999) log(`seeded ${i + 1} documents`)
    }
    const indexer = server.deps.search.indexer!
    await until(async () => (await indexer.index.indexed()).length >= DOCS, 3_600_000)
    const seedS = (performance.now() - t0) / 1000
    const seedCpu = process.cpuUsage(cpu0)
    log(`indexed ${DOCS} documents (${(textChars / 1e6).toFixed(1)} MB of text) in ${seedS.toFixed(1)} s`)

    // query latency over HTTP, as a client sees it
    const kinds: Record<string, () => string> = {
      word: () => zipf(),
      'two words': () => `${zipf()} ${zipf()}`,
      phrase: () => `"${phrases[Math.floor(rand() * phrases.length)]}"`,
      prefix: () => `${zipf().slice(0, 4)}*`,
    }
    const latency: Record<string, { p50: number; p95: number; hits: number }> = {}
    const all: number[] = []
    for (const [kind, make] of Object.entries(kinds)) {
      const ms: number[] = []
      let hits = 0
      for (let i = 0; i < QUERIES / 4; i++) {
        const t = performance.now()
        const res = await fetch(
          `http://127.0.0.1:${server.apiPort}/api/v0/workspaces/${ws.id}/search?q=${encodeURIComponent(make())}`,
          { headers: { 'x-api-key': key } },
        )
        const body = (await res.json()) as { results: unknown[] }
        if (res.status !== 200) throw new Error(`search answered ${res.status}`)
        ms.push(performance.now() - t)
        hits += body.results.length
      }
      all.push(...ms)
      latency[kind] = { p50: +pct(ms, 50).toFixed(1), p95: +pct(ms, 95).toFixed(1), hits: Math.round(hits / ms.length) }
    }

    // size on disk: the embedded index's directory, and the table with its indexes on either engine
    const size = async () =>
      Number((await indexer.index.db.query(`SELECT pg_total_relation_size('search_blocks_v1')::text`, []))[0]![0])
    const tableBytes = await size()
    const dirBytes = pg ? null : du(join(dir, 'data', 'search'))
    // what the live rows take, once the rows each re-index replaced are compacted away
    await indexer.index.db.query('VACUUM FULL search_blocks_v1', [])
    const compactBytes = await size()

    // indexing CPU under steady writes: the same load with the index on, then off
    const load = async (s: TandemServer, hot: Asset[]): Promise<number> => {
      const c0 = process.cpuUsage()
      const w0 = performance.now()
      let sent = 0
      const end = w0 + SECONDS * 1000
      while (performance.now() < end) {
        const due = Math.floor(((performance.now() - w0) / 1000) * RATE)
        for (; sent < due; sent++) {
          const a = hot[sent % hot.length]!
          const d = new Y.Doc()
          const p = new Y.XmlElement('paragraph')
          p.insert(0, [new Y.XmlText(sentence(6))])
          d.getXmlFragment('default').insert(0, [p])
          void s.deps.docs.applyUpdate({ org: ws.id, doc: a.id }, Y.encodeStateAsUpdate(d), user)
          d.destroy()
        }
        await new Promise((r) => setTimeout(r, 5))
      }
      await new Promise((r) => setTimeout(r, 3000)) // the last windows close and index
      const c = process.cpuUsage(c0)
      return (c.user + c.system) / 1e6 / ((performance.now() - w0) / 1000)
    }
    const hot = assets.slice(0, HOT)
    const withIndex = await load(server, hot)
    await server.close()
    const off = await start(join(dir, 'data'), pg, 'off', 'bench_search')
    const withoutIndex = await load(off.server, hot)
    await off.server.close()

    const result = {
      storage,
      engine: pg ? 'postgres' : 'pglite',
      docs: DOCS,
      text_mb: +(textChars / 1e6).toFixed(1),
      seed_s: +seedS.toFixed(1),
      seed_cpu_s: +((seedCpu.user + seedCpu.system) / 1e6).toFixed(1),
      query_ms: { ...latency, all: { p50: +pct(all, 50).toFixed(1), p95: +pct(all, 95).toFixed(1) } },
      index_table_mb: +(tableBytes / 1e6).toFixed(1),
      index_table_x_text: +(tableBytes / textChars).toFixed(2),
      index_compacted_mb: +(compactBytes / 1e6).toFixed(1),
      index_compacted_x_text: +(compactBytes / textChars).toFixed(2),
      ...(dirBytes !== null
        ? { index_dir_mb: +(dirBytes / 1e6).toFixed(1), index_dir_x_text: +(dirBytes / textChars).toFixed(2) }
        : {}),
      load: {
        rate: RATE,
        hot: HOT,
        seconds: SECONDS,
        cpu_cores_index_on: +withIndex.toFixed(3),
        cpu_cores_index_off: +withoutIndex.toFixed(3),
        indexing_cpu_pct_of_a_core: +((withIndex - withoutIndex) * 100).toFixed(1),
      },
    }
    console.log(JSON.stringify(result, null, 2))
    await writeFile(join(resultsDir(flags), `search-${storage}-${DOCS}.json`), JSON.stringify(result, null, 2) + '\n')
  } finally {
    await pg?.close()
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
