// Results as JSON, a Markdown table (figures per peer, then ratios Tandem/peer) and an SVG chart.
import type { Metrics } from '../scenarios/types.js'

export interface RunRecord {
  scenario: string
  peer: string
  version: string
  size: unknown
  metrics: Metrics
  notes: string[]
  error?: string
  startedAt: string
  durationSec: number
  /** 1-based repetition (with --repeat N) */
  repeat?: number
}

export interface BenchReport {
  meta: {
    startedAt: string
    finishedAt: string
    command: string
    machine: { nproc: number; cpu: string; node: string; memTotal: string; kernel: string }
    pinning: string
    tandemEntry: string
    notes: string[]
  }
  /** the reported run per scenario and peer (with --repeat, the one with the quietest server core) */
  runs: RunRecord[]
  /** every run, when repeated */
  allRuns?: RunRecord[]
}

interface Col {
  key: string
  label: string
  better: 'higher' | 'lower'
}

const TRAFFIC: Col[] = [
  { key: 'deliveredPerSec', label: 'delivered/s', better: 'higher' },
  { key: 'deliveryRatio', label: 'delivery ratio', better: 'higher' },
  { key: 'latencyP50Ms', label: 'p50 ms', better: 'lower' },
  { key: 'latencyP99Ms', label: 'p99 ms', better: 'lower' },
  { key: 'latencyMaxMs', label: 'max ms', better: 'lower' },
  { key: 'deliveriesPerCpuSec', label: 'deliveries / CPU s', better: 'higher' },
  { key: 'cpuSecPer1kDeliveries', label: 'CPU s / 1k deliveries', better: 'lower' },
  { key: 'serverRssMB', label: 'RSS MB', better: 'lower' },
  { key: 'serverPeakRssMB', label: 'peak RSS MB', better: 'lower' },
]

export const COLUMNS: Record<string, Col[]> = {
  fanout: TRAFFIC,
  rooms: TRAFFIC,
  presence: [
    { key: 'serverCpuPct', label: 'server CPU %', better: 'lower' },
    { key: 'awarenessP50Ms', label: 'awareness p50 ms', better: 'lower' },
    { key: 'awarenessP99Ms', label: 'awareness p99 ms', better: 'lower' },
    { key: 'latencyP50Ms', label: 'doc p50 ms', better: 'lower' },
    { key: 'latencyP99Ms', label: 'doc p99 ms', better: 'lower' },
    { key: 'finalStatesRight', label: 'final states right', better: 'higher' },
    { key: 'closes', label: 'closes', better: 'lower' },
    { key: 'loadGenCpu', label: 'generator CPU', better: 'lower' },
    { key: 'serverPeakRssMB', label: 'peak RSS MB', better: 'lower' },
  ],
  storm: [
    { key: 'connPerSec', label: 'connections/s', better: 'higher' },
    { key: 'syncRatio', label: 'synced ratio', better: 'higher' },
    { key: 'syncP50Ms', label: 'sync p50 ms', better: 'lower' },
    { key: 'syncP99Ms', label: 'sync p99 ms', better: 'lower' },
    { key: 'cpuMsPerConn', label: 'CPU ms / conn', better: 'lower' },
    { key: 'serverPeakRssMB', label: 'peak RSS MB', better: 'lower' },
  ],
  idle: [
    { key: 'rssPerConnKB', label: 'RSS KB / conn', better: 'lower' },
    { key: 'rssPerConnSecondHalfKB', label: 'KB / conn, 2nd half', better: 'lower' },
    { key: 'openRatio', label: 'open ratio', better: 'higher' },
    { key: 'connectPerSec', label: 'connects/s', better: 'higher' },
    { key: 'serverRssMB', label: 'RSS MB', better: 'lower' },
  ],
  cold: [
    { key: 'docsPerSec', label: 'docs/s', better: 'higher' },
    { key: 'loadRatio', label: 'loaded ratio', better: 'higher' },
    { key: 'openP50Ms', label: 'open p50 ms', better: 'lower' },
    { key: 'openP99Ms', label: 'open p99 ms', better: 'lower' },
    { key: 'cpuMsPerDoc', label: 'CPU ms / doc', better: 'lower' },
    { key: 'restartMs', label: 'restart ms', better: 'lower' },
    { key: 'stopMs', label: 'of it stop ms', better: 'lower' },
    { key: 'serverPeakRssMB', label: 'peak RSS MB', better: 'lower' },
  ],
  memory: [
    { key: 'kbPerDoc', label: 'KB / loaded doc', better: 'lower' },
    { key: 'xEncoded', label: 'x encoded', better: 'lower' },
    { key: 'heapKbPerDoc', label: 'heap KB / doc', better: 'lower' },
    { key: 'kbPerDocFromIdle', label: 'KB / doc, from idle', better: 'lower' },
    { key: 'plainKbPerDoc', label: 'plain: KB / doc', better: 'lower' },
    { key: 'plainXEncoded', label: 'plain: x encoded', better: 'lower' },
    { key: 'anonKbPerDoc', label: 'anon KB / doc', better: 'lower' },
    { key: 'anonXEncoded', label: 'anon x encoded', better: 'lower' },
    { key: 'plainAnonKbPerDoc', label: 'plain: anon KB / doc', better: 'lower' },
    { key: 'rssEmptyMB', label: 'RSS, N empty MB', better: 'lower' },
    { key: 'rssMB', label: 'RSS, N loaded MB', better: 'lower' },
  ],
  large: [
    { key: 'syncMs', label: 'first sync ms', better: 'lower' },
    { key: 'riseMB', label: 'peak RSS rise MB', better: 'lower' },
    { key: 'riseX', label: 'rise x doc', better: 'lower' },
    { key: 'heldX', label: 'held x doc', better: 'lower' },
    { key: 'serverCpuSec', label: 'CPU s', better: 'lower' },
    { key: 'restartMs', label: 'restart ms', better: 'lower' },
    { key: 'writeSec', label: 'write s', better: 'lower' },
    { key: 'restGetMs', label: 'Tandem REST first GET ms', better: 'lower' },
    { key: 'restRiseMB', label: 'Tandem REST GET peak RSS rise MB', better: 'lower' },
    { key: 'restStallMs', label: 'Tandem REST GET: longest /healthz meanwhile ms', better: 'lower' },
  ],
}

const fmt = (v: number | null | undefined): string => {
  if (v === null || v === undefined || Number.isNaN(v)) return '–'
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString('en-US')
  if (Math.abs(v) >= 10) return v.toFixed(1)
  if (Math.abs(v) >= 0.01) return v.toFixed(3).replace(/0+$/, '').replace(/\.$/, '')
  return v.toPrecision(2)
}

function sizeText(size: unknown): string {
  return Object.entries(size as Record<string, number>)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
}

/** Ratio Tandem/peer for one metric; null when either side is missing or zero. */
export function ratio(t: number | null | undefined, p: number | null | undefined): number | null {
  if (typeof t !== 'number' || typeof p !== 'number' || !Number.isFinite(t) || !Number.isFinite(p) || p === 0)
    return null
  return t / p
}

const SUBJECTS = ['tandem', 'tandem-mem', 'tandem-pg', 'tandem-ws']

/** Rows "subject / peer": each Tandem variant against each other server, and Tandem against its in-memory twin. */
export function ratioRows(report: BenchReport): {
  scenario: string
  label: string
  cells: { label: string; better: string; value: number | null; tandemWorse: boolean }[]
}[] {
  const out: ReturnType<typeof ratioRows> = []
  const scenarios = [...new Set(report.runs.map((r) => r.scenario))]
  for (const s of scenarios) {
    const ok = report.runs.filter((r) => r.scenario === s && !r.error)
    const pairs: [RunRecord, RunRecord][] = []
    for (const subj of SUBJECTS) {
      const t = ok.find((r) => r.peer === subj)
      if (!t) continue
      for (const p of ok.filter((r) => !SUBJECTS.includes(r.peer))) pairs.push([t, p])
    }
    const t = ok.find((r) => r.peer === 'tandem')
    const m = ok.find((r) => r.peer === 'tandem-mem')
    const pg = ok.find((r) => r.peer === 'tandem-pg')
    if (t && m) pairs.push([t, m])
    if (pg && t) pairs.push([pg, t]) // PostgreSQL against LevelDB, the same server otherwise
    const ws = ok.find((r) => r.peer === 'tandem-ws')
    if (ws && t) pairs.push([ws, t]) // the ws transport against uWS, the same server otherwise
    for (const [a, b] of pairs) {
      const cells = (COLUMNS[s] ?? []).map((c) => {
        const value = ratio(a.metrics[c.key], b.metrics[c.key])
        const tandemWorse = value !== null && (c.better === 'higher' ? value < 0.95 : value > 1.05)
        return { label: c.label, better: c.better, value, tandemWorse }
      })
      out.push({ scenario: s, label: `${a.peer} / ${b.peer}`, cells })
    }
  }
  return out
}

export function markdown(report: BenchReport): string {
  const m = report.meta
  const lines: string[] = []
  lines.push(`# Tandem bench results, ${m.startedAt}`, '')
  lines.push(`Command: \`${m.command}\``, '')
  lines.push(
    `Machine: ${m.machine.nproc} cores (${m.machine.cpu}), ${m.machine.memTotal}, Linux ${m.machine.kernel}, Node ${m.machine.node}. ${m.pinning}. Tandem entry: ${m.tandemEntry}.`,
    '',
  )
  const peers = [...new Set(report.runs.map((r) => `${r.peer} ${r.version}`))]
  lines.push(`Peers: ${peers.join(', ')}.`, '')
  for (const n of m.notes) lines.push(`> ${n}`, '')

  const ratios = ratioRows(report)
  if (ratios.length) {
    lines.push('## Ratios Tandem / peer', '')
    lines.push(
      '↑ higher is better, ↓ lower is better; **bold** marks a figure where the first (Tandem) is worse than the second by more than 5%. `tandem` persists to LevelDB; `tandem-mem` keeps documents in memory like the peers; `tandem-pg` persists to PostgreSQL; `tandem-ws` is `tandem` on the ws transport.',
      '',
    )
    for (const s of [...new Set(ratios.map((r) => r.scenario))]) {
      const rows = ratios.filter((r) => r.scenario === s)
      const cols = rows[0]!.cells
      lines.push(`### ${s}`, '')
      lines.push(`| ratio | ${cols.map((c) => `${c.label} ${c.better === 'higher' ? '↑' : '↓'}`).join(' | ')} |`)
      lines.push(`|---|${cols.map(() => '---:').join('|')}|`)
      for (const r of rows) {
        lines.push(
          `| ${r.label} | ${r.cells.map((c) => (c.value === null ? '–' : c.tandemWorse ? `**${c.value.toFixed(2)}**` : c.value.toFixed(2))).join(' | ')} |`,
        )
      }
      lines.push('')
    }
  }

  lines.push('## Figures', '')
  for (const s of [...new Set(report.runs.map((r) => r.scenario))]) {
    const runs = report.runs.filter((r) => r.scenario === s)
    // The noise figure rides along in the figures, never in the ratios.
    const cols: Col[] = [
      ...(COLUMNS[s] ?? []),
      { key: 'foreignLoadServerCore', label: 'foreign load on server core', better: 'lower' },
    ]
    lines.push(`### ${s} (${sizeText(runs[0]!.size)})`, '')
    lines.push(`| peer | ${cols.map((c) => c.label).join(' | ')} |`)
    lines.push(`|---|${cols.map(() => '---:').join('|')}|`)
    for (const r of runs) {
      if (r.error) {
        lines.push(`| ${r.peer} ${r.version} | failed: ${r.error.replace(/\|/g, '/').slice(0, 200)} |`)
        continue
      }
      lines.push(`| ${r.peer} ${r.version} | ${cols.map((c) => fmt(r.metrics[c.key])).join(' | ')} |`)
    }
    const notes = runs.flatMap((r) => r.notes.map((n) => `${r.peer}: ${n}`))
    if (notes.length) {
      lines.push('')
      for (const n of notes) lines.push(`- ${n}`)
    }
    lines.push('')
  }
  return lines.join('\n')
}

// ---- SVG chart ----

const COLORS: Record<string, string> = {
  tandem: '#2563eb',
  'tandem-mem': '#93c5fd',
  'tandem-pg': '#7c3aed',
  'tandem-hp': '#60a5fa',
  'tandem-ws': '#0d9488',
  yws: '#9ca3af',
  hocuspocus: '#f59e0b',
  relay: '#d1d5db',
}

interface Panel {
  title: string
  scenarios: string[]
  key: string
  /** log scale: one slow outlier must not flatten the other bars */
  log?: boolean
}

const PANELS: Panel[] = [
  { title: 'Delivered updates/s (higher is better)', scenarios: ['fanout', 'rooms'], key: 'deliveredPerSec' },
  {
    title: 'Latency p99, ms, log scale (lower is better)',
    scenarios: ['fanout', 'rooms', 'presence'],
    key: 'latencyP99Ms',
    log: true,
  },
  { title: 'Deliveries per server CPU second (higher)', scenarios: ['fanout', 'rooms'], key: 'deliveriesPerCpuSec' },
  { title: 'Connect storm: connections/s (higher)', scenarios: ['storm'], key: 'connPerSec' },
  { title: 'Idle: KB RSS per connection (lower)', scenarios: ['idle'], key: 'rssPerConnKB' },
  { title: 'Cold load: documents/s (higher)', scenarios: ['cold'], key: 'docsPerSec' },
  { title: 'KB RSS per loaded document (lower)', scenarios: ['memory'], key: 'kbPerDoc' },
  { title: 'Large document: ms to first sync (lower)', scenarios: ['large'], key: 'syncMs' },
  { title: 'Large document: peak RSS rise, x its size (lower)', scenarios: ['large'], key: 'riseX' },
]

/** Short bar labels: 2450 -> 2.45k. */
const short = (v: number): string => {
  if (Math.abs(v) >= 1e6) return `${(v / 1e6).toPrecision(3)}M`
  if (Math.abs(v) >= 1e3) return `${(v / 1e3).toPrecision(3)}k`
  return v >= 100 ? v.toFixed(0) : v.toPrecision(3)
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export function svg(report: BenchReport): string {
  const peers = [...new Set(report.runs.map((r) => r.peer))]
  const panels = PANELS.filter((p) =>
    report.runs.some((r) => p.scenarios.includes(r.scenario) && typeof r.metrics[p.key] === 'number'),
  )
  const pw = 320
  const ph = 240
  const cols = 3
  const rows = Math.max(1, Math.ceil(panels.length / cols))
  const top = 56
  const W = pw * cols + 20
  const H = top + ph * rows + 10
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="11">`,
  )
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`)
  out.push(
    `<text x="10" y="20" font-size="15" font-weight="600">Tandem bench, ${esc(report.meta.startedAt)} (${report.meta.machine.nproc} cores, Node ${esc(report.meta.machine.node)})</text>`,
  )
  peers.forEach((p, i) => {
    const x = 10 + i * 150
    const v = report.runs.find((r) => r.peer === p)?.version ?? ''
    out.push(
      `<rect x="${x}" y="32" width="12" height="12" fill="${COLORS[p] ?? '#666'}"/><text x="${x + 16}" y="42">${esc(`${p} ${v}`)}</text>`,
    )
  })
  panels.forEach((panel, i) => {
    const ox = 10 + (i % cols) * pw
    const oy = top + Math.floor(i / cols) * ph
    out.push(`<g transform="translate(${ox},${oy})">`)
    out.push(`<text x="0" y="14" font-weight="600">${esc(panel.title)}</text>`)
    const chartTop = 30
    const chartH = ph - 70
    const chartW = pw - 30
    const groups = panel.scenarios.filter((s) => report.runs.some((r) => r.scenario === s))
    const values = report.runs.filter((r) => groups.includes(r.scenario)).map((r) => r.metrics[panel.key])
    const max = Math.max(1e-9, ...values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)))
    out.push(`<line x1="0" y1="${chartTop + chartH}" x2="${chartW}" y2="${chartTop + chartH}" stroke="#333"/>`)
    const gw = chartW / Math.max(1, groups.length)
    const bw = Math.min(40, (gw - 16) / Math.max(1, peers.length))
    groups.forEach((g, gi) => {
      const gx = gi * gw + (gw - bw * peers.length) / 2
      peers.forEach((p, pi) => {
        const r = report.runs.find((x) => x.scenario === g && x.peer === p)
        const v = r?.metrics[panel.key]
        const x = gx + pi * bw
        if (typeof v !== 'number' || !Number.isFinite(v)) {
          out.push(`<text x="${x + bw / 2}" y="${chartTop + chartH - 4}" text-anchor="middle" fill="#999">n/a</text>`)
          return
        }
        const h = (panel.log ? Math.log10(1 + Math.max(0, v)) / Math.log10(1 + max) : v / max) * (chartH - 14)
        out.push(
          `<rect x="${x + 2}" y="${chartTop + chartH - h}" width="${bw - 4}" height="${h}" fill="${COLORS[p] ?? '#666'}"><title>${esc(`${g} ${p}: ${fmt(v)}`)}</title></rect>`,
        )
        out.push(
          `<text x="${x + bw / 2}" y="${chartTop + chartH - h - 3}" text-anchor="middle" font-size="8">${esc(short(v))}</text>`,
        )
      })
      out.push(`<text x="${gi * gw + gw / 2}" y="${chartTop + chartH + 14}" text-anchor="middle">${esc(g)}</text>`)
    })
    out.push('</g>')
  })
  out.push('</svg>')
  return out.join('\n')
}
