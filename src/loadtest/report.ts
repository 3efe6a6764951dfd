// The loadtest report: one record (the JSON file), a plain-text summary (stdout), Markdown with an
// SVG chart of latency over the run (the Markdown file and the .svg beside it).
import type { LoadtestOptions, Protocol, Scenario } from './options.js'
import { round, type Summary } from './stats.js'

interface Percentiles {
  p50: number | null
  p95: number | null
  p99: number | null
  max: number | null
}

export interface Second {
  /** seconds since the load started */
  t: number
  delivered: number
  p50: number | null
  p99: number | null
}

export interface Report {
  scenario: Scenario
  /** what the clients spoke */
  protocol: Protocol
  target: string
  startedAt: string
  workers: number
  rooms: number
  clients: number
  connected: number
  rate: number
  awarenessHz: number
  durationSec: number
  /** the run was cut short (Ctrl-C) */
  interrupted: boolean
  sent: number
  /** deliveries the load should see: every update to every other client of its room (storm: every client synced) */
  expected: number
  delivered: number
  deliveryRatio: number | null
  /** update latency, send to first sight at each receiver (storm: connect to synced) */
  latencyMs: Percentiles
  /** connect to synced, per client */
  connectMs: Percentiles
  awareness: { sent: number; expected: number; delivered: number; latencyMs: Percentiles } | null
  /** sockets closed under load, by close code */
  closes: Record<string, number>
  /** failed connects + sockets closed under load + protocol errors */
  errors: number
  errorKinds: Record<string, number>
  timeline: Second[]
  thresholds: { name: string; limit: number; value: number | null; ok: boolean }[]
}

export const percentiles = (s: Summary): Percentiles => ({ p50: s.p50, p95: s.p95, p99: s.p99, max: s.max })

/** The thresholds the options set, checked against the report (a missing value misses). */
export function checkThresholds(
  o: LoadtestOptions['thresholds'],
  r: Pick<Report, 'latencyMs' | 'deliveryRatio' | 'errors'>,
): Report['thresholds'] {
  const out: Report['thresholds'] = []
  if (o.maxP99Ms !== null)
    out.push({
      name: 'max-p99-ms',
      limit: o.maxP99Ms,
      value: r.latencyMs.p99,
      ok: r.latencyMs.p99 !== null && r.latencyMs.p99 <= o.maxP99Ms,
    })
  if (o.minDeliveryRatio !== null)
    out.push({
      name: 'min-delivery-ratio',
      limit: o.minDeliveryRatio,
      value: r.deliveryRatio,
      ok: r.deliveryRatio !== null && r.deliveryRatio >= o.minDeliveryRatio,
    })
  if (o.maxErrors !== null)
    out.push({ name: 'max-errors', limit: o.maxErrors, value: r.errors, ok: r.errors <= o.maxErrors })
  return out
}

const ms = (v: number | null) =>
  v === null ? '-' : `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v)} ms`
const pct = (p: Percentiles) => `p50 ${ms(p.p50)}, p95 ${ms(p.p95)}, p99 ${ms(p.p99)}, max ${ms(p.max)}`
const codes = (c: Record<string, number>) =>
  Object.keys(c).length
    ? Object.entries(c)
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')
    : 'none'

function rows(r: Report): [string, string][] {
  const out: [string, string][] = [
    ['target', r.target],
    [
      'scenario',
      `${r.scenario} (${r.protocol} clients): ${r.rooms} rooms, ${r.clients} clients${r.scenario === 'storm' ? '' : `, ${r.rate}/s each${r.awarenessHz ? `, awareness ${r.awarenessHz}/s` : ''}, ${r.durationSec} s`}, ${r.workers} worker(s)${r.interrupted ? ' (interrupted)' : ''}`,
    ],
    ['connected', `${r.connected} of ${r.clients}; connect to synced ${pct(r.connectMs)}`],
    [
      r.scenario === 'storm' ? 'synced' : 'delivered',
      `${r.delivered} of ${r.expected} expected (ratio ${r.deliveryRatio ?? '-'}), ${r.sent} sent`,
    ],
    [r.scenario === 'storm' ? 'sync latency' : 'update latency', pct(r.latencyMs)],
  ]
  if (r.awareness)
    out.push(['awareness', `${r.awareness.delivered} of ${r.awareness.expected}, ${pct(r.awareness.latencyMs)}`])
  out.push(['closes under load', codes(r.closes)], ['errors', r.errors ? `${r.errors} (${codes(r.errorKinds)})` : '0'])
  for (const t of r.thresholds)
    out.push([`--${t.name} ${t.limit}`, `${t.ok ? 'met' : 'MISSED'}: ${t.value ?? 'no value'}`])
  return out
}

export function textReport(r: Report): string {
  const w = Math.max(...rows(r).map(([k]) => k.length))
  return (
    rows(r)
      .map(([k, v]) => `${k.padEnd(w)}  ${v}`)
      .join('\n') + '\n'
  )
}

export function markdownReport(r: Report, svgFile: string | null): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|')
  return [
    `# tandem loadtest: ${r.scenario}, ${r.startedAt}`,
    '',
    '| | |',
    '|---|---|',
    ...rows(r).map(([k, v]) => `| ${esc(k)} | ${esc(v)} |`),
    '',
    ...(svgFile ? [`![latency per second](${svgFile})`, ''] : []),
    '| second | delivered | p50 | p99 |',
    '|---|---|---|---|',
    ...r.timeline.map((s) => `| ${s.t} | ${s.delivered} | ${ms(s.p50)} | ${ms(s.p99)} |`),
    '',
  ].join('\n')
}

/** Latency per second of the run (p50 and p99 lines) over the deliveries per second (bars). */
export function svgReport(r: Report): string {
  const W = 720
  const H = 320
  const pad = { l: 56, r: 56, t: 36, b: 40 }
  const secs = r.timeline
  const maxT = Math.max(1, ...secs.map((s) => s.t))
  const maxMs = Math.max(1, ...secs.map((s) => s.p99 ?? 0))
  const maxD = Math.max(1, ...secs.map((s) => s.delivered))
  const x = (t: number) => pad.l + ((W - pad.l - pad.r) * t) / maxT
  const y = (v: number, top: number) => H - pad.b - ((H - pad.t - pad.b) * v) / top
  const line = (pick: (s: Second) => number | null, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" points="${secs
      .filter((s) => pick(s) !== null)
      .map((s) => `${round(x(s.t), 1)},${round(y(pick(s)!, maxMs), 1)}`)
      .join(' ')}"/>`
  const bw = Math.max(1, (W - pad.l - pad.r) / (maxT + 1) - 2)
  const bars = secs.map(
    (s) =>
      `<rect x="${round(x(s.t) - bw / 2, 1)}" y="${round(y(s.delivered, maxD), 1)}" width="${round(bw, 1)}" height="${round(H - pad.b - y(s.delivered, maxD), 1)}" fill="#dde6f3"/>`,
  )
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${pad.l}" y="20" font-size="14">${r.scenario}: update latency per second (lines, left) and deliveries per second (bars, right)</text>`,
    ...bars,
    line((s) => s.p50, '#1f77b4'),
    line((s) => s.p99, '#d62728'),
    `<line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="black"/>`,
    `<line x1="${pad.l}" y1="${pad.t}" x2="${pad.l}" y2="${H - pad.b}" stroke="black"/>`,
    `<text x="${pad.l - 6}" y="${pad.t + 4}" text-anchor="end">${round(maxMs, 1)} ms</text>`,
    `<text x="${pad.l - 6}" y="${H - pad.b}" text-anchor="end">0</text>`,
    `<text x="${W - pad.r + 6}" y="${pad.t + 4}">${maxD}/s</text>`,
    `<text x="${W - pad.r}" y="${H - pad.b + 16}" text-anchor="end">${maxT} s</text>`,
    `<text x="${pad.l + 8}" y="${pad.t + 14}" fill="#1f77b4">p50</text>`,
    `<text x="${pad.l + 40}" y="${pad.t + 14}" fill="#d62728">p99</text>`,
    '</svg>',
    '',
  ].join('\n')
}
