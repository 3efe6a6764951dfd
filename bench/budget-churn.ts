// `node --import tsx bench/budget-churn.ts [--duration 1200] [--docs 5000] [--budget-mb 256] ...`
// The memory budget under churn (issue 24), not part of CI: one Tandem started with
// `--memory-budget-mb N` (a server that refuses the flag ends the script with exit 2), then for
// `--duration` seconds documents are opened in turn (0, 1, 2, ... `--docs`-1, then again), `--in-flight`
// at a time. A visit: `--writers` sockets join the document (the first visit's first writer writes a
// realistic ~79 KB document into it), each sends `--updates` marked updates (a unique Y.Map key each)
// and waits for the server's answer to a later step 1 (Tandem answers it once everything before is
// durable: those updates are acknowledged); one more marked update goes through REST PATCH
// /ydoc/v1/{org}/{doc} (acknowledged on 200). Then the writers leave.
// Counted: refusals (socket closed 1013 "server at capacity", upgrade refused 503, REST 503 with or
// without Retry-After), anything else that failed. RSS (VmRSS, and RssAnon: without the LevelDB
// table files mapped into the process) of the server every second.
// At the end every document visited is read back through GET /ydoc (octet-stream; a 503 is retried
// after its Retry-After) and checked for every acknowledged update: lost must be 0.
// Writes budget-churn-<stamp>.json to bench/results/local/ (--save: bench/results/) (and budget-churn-latest.json with
// --latest). Exit: 0 = nothing lost and RSS within budget + baseline, 1 = otherwise, 2 = flag refused.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Y from 'yjs'
import { log, num, parseFlags } from './lib/args.js'
import { resultsDir } from './lib/results.js'
import { LoadClient } from '../src/loadtest/client.js'
import { pool } from '../src/loadtest/pool.js'
import { realisticDoc } from './lib/docs.js'
import { pinSelf, stamp } from './lib/host.js'
import { MARK_MAP, MarkWriter } from '../src/loadtest/marks.js'
import { ROOT, buildTandem, startPeer, type RunningPeer } from './lib/peers.js'
import { alive, machineFacts, memory } from './lib/proc.js'

const USAGE = `usage: node --import tsx bench/budget-churn.ts [options]
  --duration S      seconds of churn (default 1200)
  --docs N          documents opened in turn, then again from the first (default 5000)
  --budget-mb N     passed as --memory-budget-mb (default 256; 0 = do not pass it: a run without a budget)
  --in-flight N     documents being visited at once (default 24)
  --writers N       sockets writing per visit (default 2)
  --updates N       marked updates per writer per visit (default 5)
  --doc-kb K        the realistic document written on a document's first visit (default 78)
  --server-cpus L   taskset for the server (default 0); this process goes to --client-cpus (default 1)
  --tandem-entry F  Tandem script (default: bundle into bench/.build/dist); --no-build: bin/tandem.js
  --save / --out DIR  write to bench/results/ / DIR instead of bench/results/local/; --latest also writes budget-churn-latest.json
`

const MB = 1024 * 1024
const ORG = 'churn'
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

interface DocState {
  seeded: boolean
  /** mark keys whose update the server acknowledged */
  acked: Set<string>
}

interface Counts {
  visits: number
  wsRefused1013: number
  wsRefusedHttp503: number
  restRefused503: number
  restRefused503NoRetryAfter: number
  wsOtherFailures: number
  restOtherFailures: number
  closedBeforeAck: number
  ackedUpdates: number
  restAcked: number
  firstFailures: string[]
}

function isCapacityClose(c: LoadClient): boolean {
  return c.closeCode === 1013 && /server at capacity/.test(c.closeReason)
}

async function main(argv: string[]): Promise<number> {
  const flags = parseFlags(argv)
  if (flags.has('help')) {
    process.stdout.write(USAGE)
    return 0
  }
  const durationSec = num(flags, 'duration') ?? 1200
  const docs = Math.max(1, Math.floor(num(flags, 'docs') ?? 5000))
  const budgetMb = num(flags, 'budget-mb') ?? 256
  const inFlight = Math.max(1, Math.floor(num(flags, 'in-flight') ?? 24))
  const writers = Math.max(1, Math.floor(num(flags, 'writers') ?? 2))
  const updates = Math.max(1, Math.floor(num(flags, 'updates') ?? 5))
  const docKB = num(flags, 'doc-kb') ?? 78
  const serverCpus = flags.get('server-cpus') ?? '0'
  const pinned = !flags.has('no-pin') && pinSelf(flags.get('client-cpus') ?? '1')
  const out = resultsDir(flags)

  const seed = realisticDoc(docKB * 1024)
  const entry =
    flags.get('tandem-entry') ?? (flags.has('no-build') ? join(ROOT, 'bin/tandem.js') : await buildTandem(log))
  const dataDir = mkdtempSync(join(tmpdir(), 'tandem-budget-churn-'))
  const tandemArgs = budgetMb > 0 ? ['--memory-budget-mb', String(budgetMb)] : []
  let peer: RunningPeer
  try {
    peer = await startPeer('tandem', {
      dataDir,
      persistent: true,
      cpus: pinned ? serverCpus : null,
      tandemEntry: entry,
      tandemArgs,
      log: (l) => log(`  [tandem] ${l.slice(0, 300)}`),
    })
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true })
    const msg = (err as Error).message
    if (/(unknown option|configuration error)[^\n]*memory-budget-mb/.test(msg)) {
      process.stderr.write(
        `budget-churn: the server refused --memory-budget-mb ${budgetMb}: this build has no memory budget (issue 24). Its words:\n${msg.split('\n').slice(-3).join('\n')}\n`,
      )
      return 2
    }
    throw err
  }
  process.once('exit', () => peer.killNow())
  process.once('SIGINT', () => {
    peer.killNow()
    process.exit(130)
  })
  log(
    `budget-churn: Tandem pid ${peer.pid} ${budgetMb > 0 ? `with --memory-budget-mb ${budgetMb}` : 'without a budget'}; ${docs} documents in turn, ${inFlight} at once, ${writers} writers x ${updates} updates + 1 REST PATCH per visit, ${durationSec} s`,
  )
  await sleep(2000)
  const { rss: baseline, anon: anonBaseline } = memory(peer.pid)
  const rssSeries: [number, number][] = []
  let rssMax = baseline
  let anonMax = anonBaseline
  const t0 = Date.now()
  const sampler = setInterval(() => {
    if (!alive(peer.pid)) return
    const { rss, anon } = memory(peer.pid)
    rssMax = Math.max(rssMax, rss)
    anonMax = Math.max(anonMax, anon)
    const t = Math.round((Date.now() - t0) / 1000)
    if (t % 5 === 0) rssSeries.push([t, Math.round(rss / MB)])
  }, 1000)

  const states = new Map<string, DocState>()
  const c: Counts = {
    visits: 0,
    wsRefused1013: 0,
    wsRefusedHttp503: 0,
    restRefused503: 0,
    restRefused503NoRetryAfter: 0,
    wsOtherFailures: 0,
    restOtherFailures: 0,
    closedBeforeAck: 0,
    ackedUpdates: 0,
    restAcked: 0,
    firstFailures: [],
  }
  const failure = (what: string): void => {
    if (c.firstFailures.length < 10) c.firstFailures.push(what)
  }
  let nextSender = 1
  let nextDoc = 0
  const deadline = t0 + durationSec * 1000

  const restUrl = async (doc: string): Promise<string> => {
    const t = await peer.target(ORG, doc, 'rest')
    return `http://127.0.0.1:${peer.port}/ydoc/v1/${ORG}/${doc}?yauth=${encodeURIComponent(t.token)}`
  }

  const visit = async (doc: string): Promise<void> => {
    let st = states.get(doc)
    if (!st) states.set(doc, (st = { seeded: false, acked: new Set() }))
    c.visits++
    const clients: LoadClient[] = []
    for (let w = 0; w < writers; w++)
      clients.push(new LoadClient(nextSender++, await peer.target(ORG, doc, `w${w}`), { connectTimeoutMs: 60_000 }))
    await Promise.all(
      clients.map(async (cl, w) => {
        try {
          await cl.connect()
        } catch (err) {
          const msg = (err as Error).message
          if (isCapacityClose(cl)) c.wsRefused1013++
          else if (/HTTP 503/.test(msg)) c.wsRefusedHttp503++
          else {
            c.wsOtherFailures++
            failure(`connect ${doc}: ${msg} ${cl.closeReason}`)
          }
          return
        }
        const seeding = w === 0 && !st.seeded
        if (seeding) cl.sendUpdate(seed.update)
        const keys: string[] = []
        for (let u = 1; u <= updates; u++) {
          if (!cl.sendMark()) break
          keys.push(`${cl.id}:${u}`)
        }
        try {
          await cl.confirm(undefined, 60_000)
          for (const k of keys) st.acked.add(k)
          c.ackedUpdates += keys.length
          if (seeding) st.seeded = true
        } catch (err) {
          c.closedBeforeAck++
          failure(`confirm ${doc}: ${(err as Error).message}`)
        }
      }),
    )
    // One more through REST, while the writers are still there.
    const sender = nextSender++
    const mw = new MarkWriter(sender)
    try {
      const res = await fetch(await restUrl(doc), {
        method: 'PATCH',
        headers: { 'content-type': 'application/octet-stream' },
        body: mw.write(1),
      })
      if (res.status === 200) {
        st.acked.add(`${sender}:1`)
        c.restAcked++
        c.ackedUpdates++
      } else if (res.status === 503) {
        c.restRefused503++
        if (!res.headers.get('retry-after')) c.restRefused503NoRetryAfter++
      } else {
        c.restOtherFailures++
        failure(`PATCH ${doc}: ${res.status} ${(await res.text()).slice(0, 200)}`)
      }
      await res.arrayBuffer().catch(() => undefined)
    } catch (err) {
      c.restOtherFailures++
      failure(`PATCH ${doc}: ${(err as Error).message}`)
    } finally {
      mw.destroy()
    }
    await pool(clients, writers, (cl) => cl.close())
  }

  let lastLog = Date.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < deadline && alive(peer.pid)) {
        const doc = `d${nextDoc++ % docs}`
        await visit(doc)
        if (Date.now() - lastLog > 10_000) {
          lastLog = Date.now()
          const { rss } = memory(peer.pid)
          rssMax = Math.max(rssMax, rss)
          log(
            `  ${Math.round((Date.now() - t0) / 1000)} s: ${c.visits} visits (${states.size} documents), RSS ${(rss / MB).toFixed(0)} MB (max ${(rssMax / MB).toFixed(0)}), refused: ws 1013 ${c.wsRefused1013}, ws 503 ${c.wsRefusedHttp503}, REST 503 ${c.restRefused503}; other failures ${c.wsOtherFailures + c.restOtherFailures + c.closedBeforeAck}`,
          )
        }
      }
    }),
  )
  const churnSec = (Date.now() - t0) / 1000
  clearInterval(sampler)
  const serverAlive = alive(peer.pid)
  log(
    `churn over after ${churnSec.toFixed(0)} s: ${c.visits} visits to ${states.size} documents, ${c.ackedUpdates} updates acknowledged; verifying every document through GET /ydoc`,
  )

  // Read back: every acknowledged key (and the seed) must be there.
  let lost = 0
  let docsWithLoss = 0
  let unreadable = 0
  let verifyRefused = 0
  const losses: string[] = []
  if (serverAlive) {
    await pool([...states.entries()], 8, async ([doc, st]) => {
      if (!st.acked.size && !st.seeded) return
      for (let attempt = 0; attempt < 60; attempt++) {
        let res: Response
        try {
          res = await fetch(await restUrl(doc), { headers: { accept: 'application/octet-stream' } })
        } catch (err) {
          await sleep(500)
          if (attempt === 59) {
            unreadable++
            failure(`GET ${doc}: ${(err as Error).message}`)
          }
          continue
        }
        if (res.status === 503) {
          verifyRefused++
          await res.arrayBuffer().catch(() => undefined)
          await sleep(Math.min(10, Number(res.headers.get('retry-after') ?? 1) || 1) * 1000)
          continue
        }
        if (res.status !== 200) {
          unreadable++
          failure(`GET ${doc}: ${res.status}`)
          return
        }
        const d = new Y.Doc()
        Y.applyUpdate(d, new Uint8Array(await res.arrayBuffer()))
        const map = d.getMap(MARK_MAP)
        let missing = 0
        for (const k of st.acked) if (!map.has(k)) missing++
        if (st.seeded && d.getText('body').length !== seed.chars) missing++
        d.destroy()
        if (missing) {
          lost += missing
          docsWithLoss++
          if (losses.length < 10) losses.push(`${doc}: ${missing} of ${st.acked.size + (st.seeded ? 1 : 0)}`)
        }
        return
      }
      unreadable++
    })
  }
  const rssEnd = serverAlive ? memory(peer.pid).rss : 0
  await peer.stop()
  rmSync(dataDir, { recursive: true, force: true })

  const budget = budgetMb * MB
  // The budget bounds what the server allocates: anonymous memory. VmRSS also counts LevelDB's
  // table files mapped into the process, page cache that grows with the data dir and that the
  // kernel takes back under pressure (reported beside it).
  const withinBudget = budgetMb > 0 ? anonMax <= anonBaseline + budget : null
  const result = {
    startedAt: new Date(t0).toISOString(),
    command: `node --import tsx bench/budget-churn.ts ${argv.join(' ')}`.trim(),
    machine: machineFacts(),
    loadavg: loadavg(),
    pinning: pinned ? `server on CPU ${serverCpus}, churn on ${flags.get('client-cpus') ?? '1'}` : 'none',
    settings: { durationSec, docs, budgetMb, inFlight, writers, updates, seedBytes: seed.update.length },
    churnSec: Math.round(churnSec),
    documentsVisited: states.size,
    ...c,
    visitsPerSec: Math.round((c.visits / churnSec) * 10) / 10,
    rssBaselineMB: Math.round(baseline / MB),
    rssMaxMB: Math.round(rssMax / MB),
    rssEndMB: Math.round(rssEnd / MB),
    budgetMB: budgetMb || null,
    rssMaxOverBaselineMB: Math.round((rssMax - baseline) / MB),
    anonBaselineMB: Math.round(anonBaseline / MB),
    anonMaxMB: Math.round(anonMax / MB),
    anonMaxOverBaselineMB: Math.round((anonMax - anonBaseline) / MB),
    withinBudget,
    verifyRefused503: verifyRefused,
    unreadable,
    lost,
    docsWithLoss,
    losses,
    serverDied: !serverAlive,
    rssSeriesMB: rssSeries,
  }
  const file = join(out, `budget-churn-${stamp(new Date(t0))}.json`)
  writeFileSync(file, JSON.stringify(result, null, 2))
  if (flags.has('latest')) copyFileSync(file, join(out, 'budget-churn-latest.json'))
  process.stdout.write(
    [
      '',
      `documents visited ${states.size} (${c.visits} visits, ${result.visitsPerSec}/s), updates acknowledged ${c.ackedUpdates} (REST ${c.restAcked})`,
      `refusals: socket 1013 "server at capacity" ${c.wsRefused1013}, upgrade 503 ${c.wsRefusedHttp503}, REST 503 ${c.restRefused503} (${c.restRefused503NoRetryAfter} without Retry-After), during verification ${verifyRefused}`,
      `other failures: sockets ${c.wsOtherFailures}, closed before acknowledgement ${c.closedBeforeAck}, REST ${c.restOtherFailures}${c.firstFailures.length ? ` (first: ${c.firstFailures.slice(0, 3).join(' | ')})` : ''}`,
      `RSS: baseline ${result.rssBaselineMB} MB, max ${result.rssMaxMB} MB (+${result.rssMaxOverBaselineMB}; file-backed pages included)`,
      `anonymous RSS: baseline ${result.anonBaselineMB} MB, max ${result.anonMaxMB} MB (+${result.anonMaxOverBaselineMB}), ${budgetMb > 0 ? `budget ${budgetMb} MB: ${withinBudget ? 'within budget + baseline' : 'OVER budget + baseline'}` : 'no budget passed'}`,
      `lost: ${lost} acknowledged updates in ${docsWithLoss} documents${losses.length ? ` (${losses.join('; ')})` : ''}; unreadable ${unreadable}${!serverAlive ? '; THE SERVER DIED' : ''}`,
      `written: ${file}`,
      '',
    ].join('\n'),
  )
  return lost === 0 && unreadable === 0 && serverAlive && withinBudget !== false ? 0 : 1
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`budget-churn: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n${USAGE}`)
    process.exit(1)
  },
)
