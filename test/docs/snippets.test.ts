// The documentation's runnable snippets, run as written on this Node against a real server with the
// demo world: every fenced block right after a `<!-- runs on Node 20 as written ... -->` line in
// README.md and docs/*.md. Each gets the api listener's URL and the demo key in TANDEM_API_URL and
// TANDEM_API_KEY (as a user would export them) and must exit 0 by itself: a snippet that leaves a
// timer or a socket behind hangs and fails here.
import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedDemoDatabase } from '../../src/demo/database.js'
import { seedDemo } from '../../src/demo/world.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

const MARK = '<!-- runs on Node 20 as written'
const EXTENSIONS: Record<string, string> = { js: 'mjs', ts: 'mts' }

interface Snippet {
  file: string
  line: number
  ext: string
  code: string
}

/** Marked blocks of one Markdown file. */
function snippetsOf(file: string, text: string): Snippet[] {
  const lines = text.split('\n')
  const found: Snippet[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith(MARK)) continue
    const fence = /^```(\w+)$/.exec(lines[i + 1] ?? '')
    if (!fence || !EXTENSIONS[fence[1]!])
      throw new Error(`${file}:${i + 1}: the mark must be followed by a js or ts block`)
    const end = lines.indexOf('```', i + 2)
    found.push({ file, line: i + 3, ext: EXTENSIONS[fence[1]!]!, code: lines.slice(i + 2, end).join('\n') })
  }
  return found
}

const docs = ['README.md', ...(await readdir('docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
const snippets = (await Promise.all(docs.map(async (f) => snippetsOf(f, await readFile(f, 'utf8'))))).flat()
// Inside the package, so a snippet resolves its imports (and the package's own name) from here.
const dir = join('.scratch', `snippets-${process.pid}`)

let h: Harness
let apiKey: string
beforeAll(async () => {
  h = await startTandem()
  apiKey = (await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))).apiKey
  await mkdir(dir, { recursive: true })
}, 60_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
  await h.close()
})

it('finds the marked snippets', () => {
  expect(snippets.map((s) => s.file)).toEqual(
    expect.arrayContaining(['README.md', 'docs/hocuspocus.md', 'docs/sdk.md']),
  )
})

describe.each(snippets)('$file:$line', (s) => {
  it('runs and exits by itself', async () => {
    const path = join(dir, `${s.file.replace(/\W/g, '-')}-${s.line}.${s.ext}`)
    await writeFile(path, s.code)
    // tsx for TypeScript snippets; `tandem-source` resolves @tandem/client to its sources (the
    // workspace link), as the console's build does
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions', 'tandem-source', path], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TANDEM_API_URL: `http://127.0.0.1:${h.server.apiPort}`, TANDEM_API_KEY: apiKey },
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c))
    child.stderr.on('data', (c: Buffer) => (out += c))
    const result = await new Promise<{ code: number | null; hung: boolean }>((resolve) => {
      let hung = false
      const guard = setTimeout(() => {
        hung = true
        child.kill('SIGKILL')
      }, 30_000)
      child.once('exit', (code) => {
        clearTimeout(guard)
        resolve({ code, hung })
      })
    })
    expect(result.hung, `${s.file}:${s.line} still running after 30 s:\n${out}`).toBe(false)
    expect(result.code, `${s.file}:${s.line}:\n${out}`).toBe(0)
  })
})
