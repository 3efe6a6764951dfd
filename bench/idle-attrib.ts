// Where an idle socket's memory goes (issue 11, target "idle"): starts one server, connects N
// synced sockets over R rooms as the idle scenario does, and prints the growth of RSS split by
// kind (/proc smaps: glibc's main arena `[heap]`, other anonymous mappings, file pages), of V8's
// heap spaces (the server's own /metrics) and, with --malloc-info, glibc's per-arena in-use and
// free bytes (gdb calls `malloc_info` in the server; needs gdb). --heap-snapshot writes V8 heap
// snapshots before and after (node's --heapsnapshot-signal) into the data dir.
//
//   node --import tsx bench/idle-attrib.ts [--peer tandem|relay|...] [--clients 5000] [--rooms 500]
//        [--hold 5] [--warmup N] [--malloc-info] [--phys: V8's resident space sizes through an inspector]
//        [--alloc: sampled allocations during the upgrades, by the nearest frame of Tandem's code]
//        [--heap-snapshot] [--server-node-args "--max-semi-space-size=1"]
// The server's environment passes through, so `MALLOC_ARENA_MAX=2 node ... bench/idle-attrib.ts`
// measures it under that setting.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import WebSocket from 'ws'
import { LoadClient } from '../src/loadtest/client.js'
import { pool } from '../src/loadtest/pool.js'
import { parseFlags } from './lib/args.js'
import { buildTandem, startPeer, type PeerName, type RunningPeer } from './lib/peers.js'
import { sleep } from './scenarios/traffic.js'

const flags = parseFlags(process.argv.slice(2))
const opt = (name: string, dflt: string): string => flags.get(name) ?? dflt
const flag = (name: string): boolean => flags.has(name)

const peerName = opt('peer', 'tandem') as PeerName
const clientsN = Number(opt('clients', '5000'))
const roomsN = Number(opt('rooms', '500'))
const holdSec = Number(opt('hold', '5'))
const nodeArgs = opt('server-node-args', '').split(' ').filter(Boolean)
const KB = 1024
/** --gc: the server runs with an inspector on this port; a full GC through it splits V8 garbage from live objects */
const INSPECT_PORT = 9000 + (process.pid % 500)

/** A DevTools session kept open (sampling lives as long as its session). */
async function cdpSession(): Promise<{
  call: (method: string, params?: object) => Promise<unknown>
  close: () => void
}> {
  const list = (await (await fetch(`http://127.0.0.1:${INSPECT_PORT}/json/list`)).json()) as {
    webSocketDebuggerUrl: string
  }[]
  const ws = new WebSocket(list[0]!.webSocketDebuggerUrl, { maxPayload: 1024 * 1024 * 1024 })
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  let id = 0
  const waiting = new Map<number, (r: unknown) => void>()
  ws.on('message', (m) => {
    const msg = JSON.parse(m.toString()) as { id?: number; result?: unknown }
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result)
  })
  return {
    call: (method, params = {}) =>
      new Promise((resolve) => {
        waiting.set(++id, resolve)
        ws.send(JSON.stringify({ id, method, params }))
      }),
    close: () => ws.close(),
  }
}

/** Sampled allocations (collected ones included) summed by the nearest frame of our own code. */
function allocationTable(profile: { head: AllocNode }, total: number): string {
  const byFrame = new Map<string, number>()
  const walk = (n: AllocNode, owner: string): void => {
    const f = n.callFrame
    const ours = f.url && !f.url.includes('node_modules') && !f.url.startsWith('node:')
    const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(f.url)?.[1] ?? (f.url.startsWith('node:') ? f.url : null)
    // outside our code: named by the first package (or node: module) on the way down
    const here = ours
      ? `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/dist\//, '')}:${f.lineNumber + 1}`
      : owner === '(outside our code)' && pkg
        ? `(outside our code: ${pkg})`
        : owner
    byFrame.set(here, (byFrame.get(here) ?? 0) + n.selfSize)
    for (const c of n.children) walk(c, here)
  }
  walk(profile.head, '(outside our code)')
  return [...byFrame]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(
      ([k, v]) =>
        `${(v / KB / clientsN).toFixed(2).padStart(7)} KB/upgrade ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`,
    )
    .join('\n')
}
interface AllocNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: AllocNode[]
}

/** One Chrome DevTools Protocol call on the server's inspector. */
async function cdp(method: string, params: object = {}): Promise<unknown> {
  const list = (await (await fetch(`http://127.0.0.1:${INSPECT_PORT}/json/list`)).json()) as {
    webSocketDebuggerUrl: string
  }[]
  const ws = new WebSocket(list[0]!.webSocketDebuggerUrl)
  await new Promise((r, j) => ws.once('open', r).once('error', j))
  const reply = await new Promise<unknown>((resolve) => {
    ws.on('message', (m) => {
      const msg = JSON.parse(m.toString()) as { id?: number; result?: unknown }
      if (msg.id === 1) resolve(msg.result)
    })
    ws.send(JSON.stringify({ id: 1, method, params }))
  })
  ws.close()
  return reply
}

interface Snapshot {
  rss: number
  anon: number
  file: number
  /** glibc's main arena (brk heap) */
  brk: number
  /** anonymous mappings other than [heap] and stacks: V8 pages, other malloc arenas, large mmaps */
  otherAnon: number
  /** non-[heap] anonymous mappings inside a 64 MB-aligned region: glibc's secondary arenas */
  arenas: number
  /** resident bytes of 256 KB anonymous mappings: V8's regular pages (in a space or pooled) */
  v8Pages: number
  v8: Record<string, number>
  malloc: { arena: number; inUse: number; system: number; free: number }[] | null
}

function smaps(pid: number): Pick<Snapshot, 'brk' | 'otherAnon' | 'arenas' | 'v8Pages'> {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8')
  let brk = 0
  let otherAnon = 0
  let arenas = 0
  let v8Pages = 0
  let cur: { start: bigint; name: string; anon: boolean; size: bigint } | null = null
  // glibc's secondary arenas are 64 MB-aligned heaps whose mapping starts the region
  const arenaStarts = new Set<bigint>()
  const regions: { start: bigint; name: string; rss: number }[] = []
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line)
    if (m) {
      const inode = Number(m[3])
      cur = {
        start: BigInt(`0x${m[1]}`),
        name: m[4]!,
        anon: inode === 0,
        size: BigInt(`0x${m[2]}`) - BigInt(`0x${m[1]}`),
      }
      continue
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line)
    if (r && cur) regions.push({ start: cur.start, name: cur.anon ? cur.name : 'file', rss: Number(r[1]) * KB })
    if (r && cur && cur.anon && cur.name === '' && cur.size === 256n * 1024n) v8Pages += Number(r[1]) * KB
  }
  const ALIGN = 64n * 1024n * 1024n
  for (const reg of regions) if (reg.name === '' && reg.start % ALIGN === 0n) arenaStarts.add(reg.start)
  for (const reg of regions) {
    if (reg.name === 'file') continue
    if (reg.name === '[heap]') brk += reg.rss
    else if (reg.name === '') {
      otherAnon += reg.rss
      if (arenaStarts.has(reg.start - (reg.start % ALIGN))) arenas += reg.rss
    }
  }
  return { brk, otherAnon, arenas, v8Pages }
}

function status(pid: number): Pick<Snapshot, 'rss' | 'anon' | 'file'> {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (n: string): number => Number(new RegExp(`^${n}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0) * KB
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') }
}

async function v8Spaces(peer: RunningPeer): Promise<Record<string, number>> {
  if (!peer.name.startsWith('tandem')) return {}
  try {
    const text = await (await fetch(`http://127.0.0.1:${peer.port}/metrics`)).text()
    const out: Record<string, number> = {}
    for (const m of text.matchAll(/^tandem_nodejs_heap_space_size_(total|used)_bytes\{space="(\w+)"\} (\S+)/gm))
      out[`${m[2]}.${m[1]}`] = Number(m[3])
    for (const name of [
      'tandem_nodejs_heap_size_total_bytes',
      'tandem_nodejs_heap_size_used_bytes',
      'tandem_nodejs_external_memory_bytes',
    ]) {
      const m = new RegExp(`^${name} (\\S+)`, 'm').exec(text)
      if (m) out[name.replace('tandem_nodejs_', '')] = Number(m[1])
    }
    return out
  } catch {
    return {}
  }
}

/** glibc's malloc_info XML, via gdb attached for a moment (the process stops meanwhile). */
function mallocInfo(pid: number): Snapshot['malloc'] {
  const file = join(tmpdir(), `malloc-info-${pid}-${Date.now()}.xml`)
  try {
    execFileSync(
      'gdb',
      [
        '-p',
        String(pid),
        '-batch',
        '-ex',
        `call (void*)fopen("${file}", "w")`,
        '-ex',
        `call (int)malloc_info(0, $1)`,
        '-ex',
        'call (int)fclose($1)',
      ],
      { stdio: 'ignore', timeout: 60_000 },
    )
    const xml = readFileSync(file, 'utf8')
    rmSync(file, { force: true })
    const out: NonNullable<Snapshot['malloc']> = []
    for (const m of xml.matchAll(/<heap nr="(\d+)">([\s\S]*?)<\/heap>/g)) {
      const body = m[2]!
      const sys = Number(/<system type="current" size="(\d+)"/.exec(body)?.[1] ?? 0)
      const rest = Number(/<total type="rest" count="\d+" size="(\d+)"/.exec(body)?.[1] ?? 0)
      const fast = Number(/<total type="fast" count="\d+" size="(\d+)"/.exec(body)?.[1] ?? 0)
      const mmap = Number(/<total type="mmap" count="\d+" size="(\d+)"/.exec(body)?.[1] ?? 0)
      out.push({ arena: Number(m[1]), system: sys, free: rest + fast, inUse: sys - rest - fast + mmap })
    }
    return out
  } catch (e) {
    console.error(`malloc_info failed: ${(e as Error).message}`)
    return null
  }
}

/** V8's heap spaces as the server sees them, physical (resident) sizes included (--gc only). */
async function physicalSpaces(): Promise<Record<string, number>> {
  const r = (await cdp('Runtime.evaluate', {
    expression: `JSON.stringify(Object.fromEntries(require('v8').getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size])))`,
    includeCommandLineAPI: true,
    returnByValue: true,
  })) as { result?: { value?: string } }
  return typeof r.result?.value === 'string' ? (JSON.parse(r.result.value) as Record<string, number>) : {}
}

async function snapshot(peer: RunningPeer): Promise<Snapshot> {
  const s = { ...status(peer.pid), ...smaps(peer.pid) }
  if (flag('gc') || flag('phys')) {
    const phys = await physicalSpaces()
    console.log(
      `V8 physical MB: ${Object.entries(phys)
        .map(([k, v]) => `${k} ${(v / KB / KB).toFixed(1)}`)
        .join(', ')}`,
    )
  }
  const malloc = flag('malloc-info') ? mallocInfo(peer.pid) : null
  return { ...s, v8: await v8Spaces(peer), malloc }
}

function heapSnapshot(pid: number, dir: string): Promise<void> {
  const before = new Set(readdirSync(dir))
  process.kill(pid, 'SIGUSR2')
  return new Promise((resolve) => {
    const t0 = Date.now()
    const poll = setInterval(() => {
      const fresh = readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f))
      if (fresh.length || Date.now() - t0 > 60_000) {
        clearInterval(poll)
        setTimeout(resolve, 3000) // let it finish writing
      }
    }, 500)
  })
}

const dataDir = mkdtempSync(join(tmpdir(), 'idle-attrib-'))
const snapDir = flag('heap-snapshot') ? dataDir : ''
const entry = peerName.startsWith('tandem') ? await buildTandem((l) => console.error(l)) : undefined
const peer = await startPeer(peerName, {
  dataDir,
  persistent: false,
  cpus: process.env.BENCH_NO_PIN ? null : '0',
  ...(entry ? { tandemEntry: entry } : {}),
  nodeArgs: [
    ...nodeArgs,
    ...(flag('gc') || flag('phys') || flag('alloc') ? [`--inspect=127.0.0.1:${INSPECT_PORT}`] : []),
    ...(snapDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapDir}`] : []),
  ],
})
try {
  const clients: LoadClient[] = []
  for (let i = 0; i < clientsN; i++)
    clients.push(
      new LoadClient(i, await peer.target('bench', `idle-${i % roomsN}`, `u${i}`), { connectTimeoutMs: 60_000 }),
    )
  // --warmup N: N sockets to other rooms connected and closed first, so the baseline has paid the
  // process's one-time costs (JIT code, V8's young generation paged in, first-use native state)
  const warmN = Number(opt('warmup', '0'))
  if (warmN > 0) {
    const warm: LoadClient[] = []
    for (let i = 0; i < warmN; i++)
      warm.push(
        new LoadClient(clientsN + i, await peer.target('bench', `warm-${i % roomsN}`, `w${i}`), {
          connectTimeoutMs: 60_000,
        }),
      )
    await pool(warm, 200, (c) => c.connect())
    await pool(warm, 500, (c) => c.close())
  }
  await sleep(1000)
  const before = await snapshot(peer)
  if (flag('dump')) writeFileSync(join(dataDir, 'smaps-before'), readFileSync(`/proc/${peer.pid}/smaps`))
  let beforeGc: Snapshot | null = null
  if (flag('gc')) {
    await cdp('HeapProfiler.collectGarbage')
    await sleep(2000)
    beforeGc = await snapshot(peer)
  }
  if (snapDir) await heapSnapshot(peer.pid, snapDir)
  const sampler = flag('alloc') ? await cdpSession() : null
  await sampler?.call('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  })
  const t0 = Date.now()
  const results = await pool(clients, 200, (c) => c.connect())
  if (sampler) {
    const { profile } = (await sampler.call('HeapProfiler.stopSampling')) as { profile: { head: AllocNode } }
    sampler.close()
    let total = 0
    const sum = (n: AllocNode): void => {
      total += n.selfSize
      n.children.forEach(sum)
    }
    sum(profile.head)
    console.log(
      `allocated during the upgrades (sampled): ${(total / KB / clientsN).toFixed(1)} KB per upgrade\n${allocationTable(profile, total)}`,
    )
  }
  const failed = results.filter((r) => r.status === 'rejected').length
  const connectSec = (Date.now() - t0) / 1000
  await sleep(holdSec * 1000)
  const open = clients.filter((c) => c.open).length
  const after = await snapshot(peer)
  if (flag('dump')) writeFileSync(join(dataDir, 'smaps-after'), readFileSync(`/proc/${peer.pid}/smaps`))
  if (snapDir) await heapSnapshot(peer.pid, snapDir)
  let afterGc: Snapshot | null = null
  if (flag('gc')) {
    await cdp('HeapProfiler.collectGarbage')
    await sleep(2000)
    afterGc = await snapshot(peer)
  }
  const per = (a: number, b: number): string => ((b - a) / KB / open).toFixed(2)
  const lines: string[] = [
    `peer ${peerName}, ${open} open (${failed} failed), connect ${connectSec.toFixed(1)} s, server MALLOC_ARENA_MAX=${/^MALLOC_ARENA_MAX=(.*)$/m.exec(readFileSync(`/proc/${peer.pid}/environ`, 'utf8').replaceAll('\0', '\n'))?.[1] ?? '-'}, node args: ${nodeArgs.join(' ') || '-'}`,
  ]
  lines.push(
    `KB per socket: rss ${per(before.rss, after.rss)} = anon ${per(before.anon, after.anon)} + file ${per(before.file, after.file)}; anon: brk [heap] ${per(before.brk, after.brk)}, other anon ${per(before.otherAnon, after.otherAnon)} (of it 64MB-aligned arenas ${per(before.arenas, after.arenas)}, V8 256 KB pages ${per(before.v8Pages, after.v8Pages)})`,
  )
  lines.push(`MB before/after: rss ${(before.rss / KB / KB).toFixed(1)} / ${(after.rss / KB / KB).toFixed(1)}`)
  const keys = Object.keys(after.v8).sort()
  if (keys.length)
    lines.push(
      `V8 MB before: ${keys
        .filter((k) => k.endsWith('total') || k.startsWith('heap'))
        .map((k) => `${k} ${((before.v8[k] ?? 0) / KB / KB).toFixed(1)}`)
        .join(', ')}`,
    )
  if (keys.length)
    lines.push(
      `V8 MB after: ${keys
        .filter((k) => k.endsWith('total') || k.startsWith('heap'))
        .map((k) => `${k} ${((after.v8[k] ?? 0) / KB / KB).toFixed(1)}`)
        .join(', ')}`,
    )
  if (keys.length)
    lines.push(`V8 KB per socket: ${keys.map((k) => `${k} ${per(before.v8[k] ?? 0, after.v8[k]!)}`).join(', ')}`)
  if (before.malloc && after.malloc) {
    const sum = (xs: NonNullable<Snapshot['malloc']>, k: 'inUse' | 'system' | 'free'): number =>
      xs.reduce((a, x) => a + x[k], 0)
    lines.push(
      `malloc KB per socket: system ${per(sum(before.malloc, 'system'), sum(after.malloc, 'system'))}, in use ${per(sum(before.malloc, 'inUse'), sum(after.malloc, 'inUse'))}, free ${per(sum(before.malloc, 'free'), sum(after.malloc, 'free'))}; arenas ${after.malloc.length}`,
    )
    lines.push(
      `malloc after (MB): ${after.malloc.map((a) => `#${a.arena} sys ${(a.system / KB / KB).toFixed(1)} used ${(a.inUse / KB / KB).toFixed(1)} free ${(a.free / KB / KB).toFixed(1)}`).join('; ')}`,
    )
  }
  if (afterGc && beforeGc) {
    const b = beforeGc
    lines.push(
      `full GC before and after (live): rss ${per(b.rss, afterGc.rss)}, brk ${per(b.brk, afterGc.brk)}, other anon ${per(b.otherAnon, afterGc.otherAnon)} (arenas ${per(b.arenas, afterGc.arenas)}, V8 pages ${per(b.v8Pages, afterGc.v8Pages)}), file ${per(b.file, afterGc.file)}; V8 total ${per(b.v8.heap_size_total_bytes ?? 0, afterGc.v8.heap_size_total_bytes ?? 0)}, used ${per(b.v8.heap_size_used_bytes ?? 0, afterGc.v8.heap_size_used_bytes ?? 0)}, old total ${per(b.v8['old.total'] ?? 0, afterGc.v8['old.total'] ?? 0)}, external ${per(b.v8.external_memory_bytes ?? 0, afterGc.v8.external_memory_bytes ?? 0)}`,
    )
    lines.push(
      `MB after GC before/after: rss ${(b.rss / KB / KB).toFixed(1)} / ${(afterGc.rss / KB / KB).toFixed(1)}, V8 total ${((b.v8.heap_size_total_bytes ?? 0) / KB / KB).toFixed(1)} / ${((afterGc.v8.heap_size_total_bytes ?? 0) / KB / KB).toFixed(1)}`,
    )
  }
  if (flag('dump')) lines.push(`smaps in ${dataDir}`)
  if (snapDir) lines.push(`heap snapshots in ${snapDir}`)
  console.log(lines.join('\n'))
  await pool(clients, 500, (c) => c.close())
} finally {
  await peer.stop()
  if (!snapDir && !flag('dump')) rmSync(dataDir, { recursive: true, force: true })
}
process.exit(0)
