// `node --import tsx bench/content.ts [--storage leveldb|postgres] [--mb 1] [--runs 7] [--no-build] [--search]
//   [--server-node-args ARGS]`
// What an agent's content calls cost the server on a document of about `mb` MB (paragraphs,
// headings and bold typed by three clients into the `default` XML fragment): GET /content as
// Markdown, ProseMirror JSON and text, and PATCH /content with a one-word change, from the current
// base and from a base 20 person edits old (the document at that base is rebuilt from history).
// The server is the production bundle (as the image runs it) in its own process, pinned to CPU 0
// when taskset is there; each figure is the median of `runs` calls over real HTTP: wall ms, and
// server CPU ms read from /proc (every thread: the content and history workers included), also as
// a ratio against GET /ydoc (octet-stream) of the same document. The search index is off unless
// `--search`: it indexes the 1 MB document again 2 s after each write (debounced), in its own
// worker, and that CPU lands in whichever call is running then (bench/search.ts measures it).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { num, parseFlags } from './lib/args.js'
import { buildTandem, startPeer } from './lib/peers.js'
import { pinSelf } from './lib/host.js'
import { threadsCpuSeconds } from './lib/proc.js'

const flags = parseFlags(process.argv.slice(2))
const storage = flags.get('storage') ?? 'leveldb'
const mb = num(flags, 'mb') ?? 1
const runs = num(flags, 'runs') ?? 7
const build = !flags.has('no-build')

const SENTENCE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. '

/** About `mb` MB of blocks typed by three clients, as one update. */
function bigDocument(): Uint8Array {
  const doc = new Y.Doc()
  const writers = [0, 1, 2].map(() => new Y.Doc())
  for (let i = 0; i < mb * 1000; i++) {
    const w = writers[i % 3]!
    Y.applyUpdate(w, Y.encodeStateAsUpdate(doc, Y.encodeStateVector(w)))
    const block = new Y.XmlElement(i % 20 === 0 ? 'heading' : 'paragraph')
    if (i % 20 === 0) block.setAttribute('level', 2 as unknown as string)
    const text = new Y.XmlText()
    block.insert(0, [text])
    const frag = w.getXmlFragment('default')
    frag.insert(frag.length, [block])
    text.insert(0, `Block ${i}. ` + SENTENCE.repeat(i % 20 === 0 ? 1 : 12))
    text.format(0, 5, { bold: {} })
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(w, Y.encodeStateVector(doc)))
  }
  return Y.encodeStateAsUpdate(doc)
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tandem-bench-content-'))
  const log = (l: string) => process.stderr.write(`${l}\n`)
  pinSelf('1') // the client on the other core
  const tandemEntry = build ? await buildTandem(log) : undefined
  const peer = await startPeer(storage === 'postgres' ? 'tandem-pg' : 'tandem', {
    dataDir: join(dir, 'data'),
    persistent: true,
    cpus: '0',
    tandemEntry,
    env: { TANDEM_SEARCH_INDEX: flags.has('search') ? 'on' : 'off' },
    // e.g. `--server-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"` to see where a call's time goes
    nodeArgs: String(flags.get('server-node-args') ?? '')
      .split(' ')
      .filter(Boolean),
  })
  // CPU from every thread's schedstat (ns), not /proc stat's 10 ms ticks: the targets are 10 and 20 ms.
  // The workers answering content calls live as long as the server, so no thread's share is lost.
  const measured = async (fn: () => Promise<unknown>): Promise<{ ms: number; cpu: number }> => {
    const cpu = threadsCpuSeconds(peer.pid)
    const t = performance.now()
    await fn()
    return { ms: performance.now() - t, cpu: +((threadsCpuSeconds(peer.pid) - cpu) * 1000).toFixed(1) }
  }
  try {
    const target = await peer.target('bench', 'big', 'bench')
    const base = `http://127.0.0.1:${peer.port}`
    const token = target.token || new URL(target.url).searchParams.get('yauth')!
    const update = bigDocument()
    const patched = await fetch(`${base}/ydoc/v1/bench/big?yauth=${token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: update,
    })
    if (patched.status !== 200) throw new Error(`PATCH ydoc ${patched.status}`)
    const ydoc = async () => {
      const res = await fetch(`${base}/ydoc/v1/bench/big?yauth=${token}`, {
        headers: { accept: 'application/octet-stream' },
      })
      if (res.status !== 200) throw new Error(`GET ydoc ${res.status}`)
      await res.arrayBuffer()
    }
    const read = async (format: string) => {
      const res = await fetch(`${base}/content/v1/bench/big?yauth=${token}&format=${format}`)
      if (res.status !== 200) throw new Error(`GET content ${res.status}: ${await res.text()}`)
      return (await res.json()) as { content: unknown; base: string }
    }
    const write = async (content: string, from: string) => {
      const res = await fetch(`${base}/content/v1/bench/big?yauth=${token}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ format: 'markdown', content, base: from }),
      })
      if (res.status !== 200) throw new Error(`PATCH content ${res.status}: ${await res.text()}`)
      const done = (await res.json()) as { applied: boolean; base: string }
      if (!done.applied) throw new Error('PATCH content changed nothing: the bench edit did not match')
      return done
    }
    /** A person's edit through the room (the log grows by one entry). */
    const personEdit = async (i: number) => {
      const d = new Y.Doc()
      const p = new Y.XmlElement('paragraph')
      p.insert(0, [new Y.XmlText(`Person edit ${i}.`)])
      const current = new Uint8Array(
        await (
          await fetch(`${base}/ydoc/v1/bench/big?yauth=${token}`, { headers: { accept: 'application/octet-stream' } })
        ).arrayBuffer(),
      )
      Y.applyUpdate(d, current)
      d.getXmlFragment('default').insert(0, [p])
      const diff = Y.encodeStateAsUpdate(d, current.length ? Y.encodeStateVectorFromUpdate(current) : undefined)
      await fetch(`${base}/ydoc/v1/bench/big?yauth=${token}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: diff,
      })
    }
    /** A part read; its answer's size (request and answer bytes, the agent's tokens) is kept too. */
    const part = async (query: string) => {
      const url = `${base}/content/v1/bench/big?yauth=${token}&${query}`
      const res = await fetch(url)
      const text = await res.text()
      if (res.status !== 200) throw new Error(`GET part ${res.status}: ${text}`)
      return { json: JSON.parse(text) as { base: string; content?: string }, bytes: url.length + text.length }
    }
    const replace = async (oldText: string, newText: string, from: string) => {
      const body = JSON.stringify({ edits: [{ old_text: oldText, new_text: newText }], base: from })
      const res = await fetch(`${base}/content/v1/bench/big?yauth=${token}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body,
      })
      const text = await res.text()
      if (res.status !== 200) throw new Error(`PATCH edits ${res.status}: ${text}`)
      return { json: JSON.parse(text) as { base: string }, bytes: body.length + text.length }
    }
    await ydoc() // warm: the room is loaded
    await read('markdown')
    type Sample = { ms: number; cpu: number }
    const m = {
      ydoc: [] as Sample[],
      markdown: [] as Sample[],
      prosemirror: [] as Sample[],
      text: [] as Sample[],
      writeNow: [] as Sample[],
      writeOld: [] as Sample[],
      outline: [] as Sample[],
      section: [] as Sample[],
      replaceNow: [] as Sample[],
      replaceOld: [] as Sample[],
    }
    let markdownBytes = 0
    let targetedBytes = 0
    let wholeBytes = 0
    for (let i = 0; i < runs; i++) {
      // the targeted workflow: outline, a section, one str_replace from its base; then one from a base 20 person edits
      // old
      let outlined: Awaited<ReturnType<typeof part>> | undefined
      m.outline.push(await measured(async () => void (outlined = await part('view=outline'))))
      const entries = (outlined!.json as unknown as { entries: { id: string; kind: string; text: string }[] }).entries
      const heading = entries.find((e) => e.kind === 'heading' && e.text.startsWith(`Block ${(i + 1) * 40}.`))!
      let section: Awaited<ReturnType<typeof part>> | null = null
      m.section.push(await measured(async () => void (section = await part(`view=section&heading=${heading.id}`))))
      let replaced: Awaited<ReturnType<typeof replace>> | null = null
      m.replaceNow.push(
        await measured(
          async () =>
            void (replaced = await replace(
              `** ${(i + 1) * 40 + 3}. Lorem`,
              `** ${(i + 1) * 40 + 3}, targeted. Lorem`,
              section!.json.base,
            )),
        ),
      )
      targetedBytes = replaced!.bytes
      const staleBase = (await part('view=outline')).json.base
      for (let e = 0; e < 20; e++) await personEdit(i * 100 + 50 + e)
      m.replaceOld.push(
        await measured(() =>
          replace(`** ${(i + 1) * 40 + 5}. Lorem`, `** ${(i + 1) * 40 + 5}, late. Lorem`, staleBase),
        ),
      )
      m.ydoc.push(await measured(ydoc))
      m.markdown.push(await measured(() => read('markdown')))
      m.prosemirror.push(await measured(() => read('prosemirror')))
      m.text.push(await measured(() => read('text')))
      const now = await read('markdown')
      markdownBytes = Buffer.byteLength(now.content as string)
      wholeBytes = 2 * JSON.stringify(now).length // the whole read, and the whole write back
      const edited = (now.content as string).replace(`** ${500 + i}. Lorem`, `** ${500 + i}, edited. Lorem`)
      m.writeNow.push(await measured(() => write(edited, now.base)))
      // an agent that read 20 person edits ago
      const stale = await read('markdown')
      for (let e = 0; e < 20; e++) await personEdit(i * 100 + e)
      const staleEdit = (stale.content as string).replace(`** ${600 + i}. Lorem`, `** ${600 + i}, late. Lorem`)
      m.writeOld.push(await measured(() => write(staleEdit, stale.base)))
    }
    const round = (x: number) => Math.round(x * 10) / 10
    const baseline = median(m.ydoc.map((x) => x.ms))
    const row = (name: string, xs: { ms: number; cpu: number }[]) => {
      const ms = median(xs.map((x) => x.ms))
      return { call: name, ms: round(ms), cpu_ms: round(median(xs.map((x) => x.cpu))), vs_ydoc: round(ms / baseline) }
    }
    const result = {
      storage,
      doc_bytes: update.length,
      markdown_bytes: markdownBytes,
      runs,
      rows: [
        row('GET /ydoc (octet-stream, baseline)', m.ydoc),
        row('GET /content markdown', m.markdown),
        row('GET /content prosemirror', m.prosemirror),
        row('GET /content text', m.text),
        row('PATCH /content one word, current base', m.writeNow),
        row('PATCH /content one word, base 20 edits old', m.writeOld),
        row('GET view=outline', m.outline),
        row('GET view=section (one heading)', m.section),
        row('PATCH edits: one str_replace, current base', m.replaceNow),
        row('PATCH edits: one str_replace, base 20 edits old', m.replaceOld),
      ],
      // what changing one word costs the agent in request and answer bytes
      tokens: { targeted_bytes: targetedBytes, whole_bytes: wholeBytes },
    }
    console.log(JSON.stringify(result, null, 2))
    console.log(
      `\n| call (${(update.length / 1e6).toFixed(2)} MB document, ${storage}) | wall ms | CPU ms | x GET /ydoc |\n|---|---|---|---|`,
    )
    for (const r of result.rows) console.log(`| ${r.call} | ${r.ms} | ${r.cpu_ms} | ${r.vs_ydoc} |`)
    console.log(
      `\none word changed, request + answer: ${targetedBytes} bytes targeted, ${wholeBytes} bytes whole (read + write)`,
    )
  } finally {
    await peer.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

await main()
