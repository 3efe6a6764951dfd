// `tandem loadtest` flags: parsed, checked and frozen before anything connects. A bad value is one
// line naming the flag (exit 2); every flag is listed by --help from this one table.
import { ArgvError, readArgv } from '../infra/argv.js'
import { didYouMean } from '../infra/did-you-mean.js'

const SCENARIOS = ['fanout', 'rooms', 'typing', 'storm', 'soak', 'presence'] as const
export type Scenario = (typeof SCENARIOS)[number]
const PROTOCOLS = ['yws', 'hocuspocus'] as const
export type Protocol = (typeof PROTOCOLS)[number]

interface Sizes {
  rooms: number
  clients: number
  /** document updates per second per client (typing: keystrokes, on average) */
  rate: number
  /** awareness updates per second per client */
  awarenessHz: number
  durationSec: number
}

/** Each scenario's sizes unless flags say otherwise: small enough for a laptop, bounded in time. */
const DEFAULTS: Record<Scenario, Sizes> = {
  fanout: { rooms: 1, clients: 50, rate: 1, awarenessHz: 0, durationSec: 10 },
  rooms: { rooms: 100, clients: 400, rate: 2, awarenessHz: 0, durationSec: 10 },
  typing: { rooms: 10, clients: 50, rate: 3, awarenessHz: 0, durationSec: 20 },
  storm: { rooms: 20, clients: 200, rate: 0, awarenessHz: 0, durationSec: 0 },
  soak: { rooms: 50, clients: 200, rate: 0.5, awarenessHz: 0.2, durationSec: 300 },
  // per room: --active cursors at awareness-hz, two writers at rate, the rest renewing every 15 s
  presence: { rooms: 1, clients: 200, rate: 5, awarenessHz: 5, durationSec: 30 },
}

const FLAGS = {
  'ws-url':
    'collab listener of any Tandem (one node, or a cluster behind its balancer), ws:// or wss://; needs --signing-keys',
  'signing-keys':
    "JWKS file of the deployment's private signing keys (as `tandem serve --signing-keys`): tokens are minted here",
  org: 'org of the documents the load names with --ws-url (default loadtest)',
  'doc-prefix': 'document names with --ws-url: PREFIX-0, PREFIX-1, ... (default lt-<start time>)',
  'api-url':
    'api listener (http:// or https://): tokens through POST /api/v0/assets/{id}/collab-token; needs --api-key',
  'api-key': 'X-API-KEY of an owner or admin with edit permission on the documents',
  assets: 'comma list of generic_doc asset ids to load (with --api-url); one room each',
  workspace: 'load the generic_doc assets of this workspace the key may edit (with --api-url)',
  scenario: `${SCENARIOS.join('|')} (default fanout)`,
  protocol: `${PROTOCOLS.join('|')}: what the clients speak, the y-websocket provider's protocol (a socket per document, the room in its URL) or the Hocuspocus provider's (the root URL, the document named in every frame) (default yws)`,
  rooms: 'documents under load',
  clients: 'sockets in all (spread over the rooms in turn)',
  'clients-per-room': 'sockets per document (sets --clients to rooms x this)',
  rate: 'document updates per second per client (typing: keystrokes per second on average, in bursts)',
  'awareness-hz': 'awareness updates per second per client (typing sends one with every other keystroke)',
  active:
    'presence: clients per room moving a cursor at --awareness-hz (default 20); two more per room type at --rate, the rest renew their state every 15 s',
  duration: 'seconds of load after every client synced (storm: none, it measures the connects)',
  drain: 'seconds to wait after the load for deliveries still in flight (default 5)',
  concurrency: 'connections opening at once (default 50; storm 100)',
  'connect-timeout': 'seconds a client may take to connect and sync before it counts as failed (default 30)',
  workers: 'processes generating load (default 1); use one per spare core',
  'source-addresses':
    'local addresses 127.0.0.2..N+1 to connect from when the target is on this machine (default: one per 250 clients); 0 = the default route',
  json: 'write the report as JSON to FILE',
  markdown: 'write the report as Markdown to FILE, with an SVG latency chart beside it (FILE.svg)',
  'max-p99-ms': 'threshold: exit 1 when the update latency p99 (ms) is above this',
  'min-delivery-ratio': 'threshold: exit 1 when delivered / expected is below this (0..1)',
  'max-errors':
    'threshold: exit 1 when errors (failed connects, sockets closed under load, protocol errors) are more than this',
  quiet: 'no progress line (the report still goes to stdout)',
  help: 'this list',
} as const
type Flag = keyof typeof FLAGS
const BOOLEAN: ReadonlySet<Flag> = new Set<Flag>(['quiet', 'help'])

export function helpText(): string {
  const width = Math.max(...Object.keys(FLAGS).map((f) => f.length)) + 4
  const lines = Object.entries(FLAGS).map(([f, what]) => `  --${f.padEnd(width - 2)}${what}`)
  return [
    'usage: tandem loadtest (--ws-url URL --signing-keys FILE [--org O] | --api-url URL --api-key KEY (--assets ID,... | --workspace ID))',
    '                       [--scenario fanout|rooms|typing|storm|soak|presence] [--protocol yws|hocuspocus] [sizes] [--workers N] [--json FILE] [--markdown FILE] [thresholds]',
    '',
    'Generates load on a running Tandem and reports delivery and latency; exits 1 when a threshold is missed, 2 on bad input.',
    '',
    ...lines,
    '',
    'scenario defaults (rooms, clients, rate, awareness-hz, duration):',
    ...SCENARIOS.map((s) => {
      const d = DEFAULTS[s]
      return `  ${s.padEnd(8)}${d.rooms} rooms, ${d.clients} clients, ${d.rate}/s, awareness ${d.awarenessHz}/s, ${d.durationSec} s`
    }),
    '',
  ].join('\n')
}

export type TargetOptions =
  | { kind: 'signing'; wsUrl: string; signingKeys: string; org: string; docPrefix: string }
  | { kind: 'api'; apiUrl: string; apiKey: string; assets: string[] | null; workspace: string | null }

export interface LoadtestOptions {
  target: TargetOptions
  scenario: Scenario
  protocol: Protocol
  rooms: number
  clients: number
  rate: number
  awarenessHz: number
  /** presence: cursors per room */
  active: number
  durationSec: number
  drainSec: number
  concurrency: number
  connectTimeoutSec: number
  workers: number
  /** local addresses to connect from, [] for the default route */
  sourceAddresses: string[]
  json: string | null
  markdown: string | null
  thresholds: { maxP99Ms: number | null; minDeliveryRatio: number | null; maxErrors: number | null }
  quiet: boolean
}

export class BadInput extends Error {}

const fail = (flag: string, what: string): never => {
  throw new BadInput(`--${flag}: ${what}`)
}

function parseArgs(argv: string[]): Map<Flag, string> {
  const flags = Object.keys(FLAGS) as Flag[]
  try {
    const spec = {
      booleans: [...BOOLEAN],
      strings: flags.filter((f) => !BOOLEAN.has(f)),
      others: 'refuse',
      plainValues: true,
    } as const
    return readArgv(argv, spec).values as Map<Flag, string>
  } catch (err) {
    if (!(err instanceof ArgvError)) throw err
    if (err.kind === 'needs-value') fail(err.arg, 'needs a value')
    const hint = err.kind === 'unknown' ? didYouMean(err.arg, Object.keys(FLAGS), (f) => `--${f}`) : ''
    throw new BadInput(
      err.kind === 'unknown'
        ? `unknown flag --${err.arg}${hint} (see --help)`
        : `unexpected argument ${JSON.stringify(err.arg)} (see --help)`,
    )
  }
}

function number(
  values: Map<Flag, string>,
  flag: Flag,
  o: { min: number; max: number; int?: boolean },
): number | undefined {
  const raw = values.get(flag)
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || (o.int && !Number.isInteger(n)) || n < o.min || n > o.max) {
    fail(flag, `expected ${o.int ? 'an integer' : 'a number'} from ${o.min} to ${o.max}, got ${JSON.stringify(raw)}`)
  }
  return n
}

function url(values: Map<Flag, string>, flag: Flag, schemes: string[]): string {
  const raw = values.get(flag)!
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return fail(flag, `not a URL: ${JSON.stringify(raw)}`)
  }
  if (!schemes.includes(u.protocol))
    fail(flag, `expected ${schemes.map((s) => `${s}//`).join(' or ')}, got ${JSON.stringify(raw)}`)
  return raw.replace(/\/+$/, '')
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** Whether sockets to this URL stay on this machine (then 127.0.0.x source addresses can spread them). */
function isLoopback(u: string): boolean {
  const host = new URL(u).hostname
  return LOCAL_HOSTS.has(host) || /^127\./.test(host)
}

export function parseOptions(argv: string[], now = new Date()): LoadtestOptions | 'help' {
  const v = parseArgs(argv)
  if (v.has('help')) return 'help'
  const scenario = (v.get('scenario') ?? 'fanout') as Scenario
  if (!SCENARIOS.includes(scenario))
    fail('scenario', `expected one of ${SCENARIOS.join(', ')}, got ${JSON.stringify(v.get('scenario'))}`)
  const protocol = (v.get('protocol') ?? 'yws') as Protocol
  if (!PROTOCOLS.includes(protocol))
    fail('protocol', `expected one of ${PROTOCOLS.join(', ')}, got ${JSON.stringify(v.get('protocol'))}`)

  let target: TargetOptions
  if (v.has('ws-url') === v.has('api-url'))
    throw new BadInput('give one target: --ws-url with --signing-keys, or --api-url with --api-key (see --help)')
  if (v.has('ws-url')) {
    for (const f of ['api-key', 'assets', 'workspace'] as const)
      if (v.has(f)) fail(f, 'goes with --api-url, not --ws-url')
    if (!v.has('signing-keys'))
      fail('signing-keys', 'required with --ws-url (the JWKS the deployment signs tokens with)')
    const org = v.get('org') ?? 'loadtest'
    const docPrefix = v.get('doc-prefix') ?? `lt-${now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}`
    for (const [f, name] of [
      ['org', org],
      ['doc-prefix', docPrefix],
    ] as const)
      if (!/^[A-Za-z0-9._~-]{1,100}$/.test(name)) fail(f, 'must match [A-Za-z0-9._~-]{1,100}')
    target = {
      kind: 'signing',
      wsUrl: url(v, 'ws-url', ['ws:', 'wss:']),
      signingKeys: v.get('signing-keys')!,
      org,
      docPrefix,
    }
  } else {
    for (const f of ['signing-keys', 'org', 'doc-prefix'] as const)
      if (v.has(f)) fail(f, 'goes with --ws-url, not --api-url')
    if (!v.has('api-key')) fail('api-key', 'required with --api-url')
    if (v.has('assets') === v.has('workspace'))
      throw new BadInput('with --api-url give --assets ID,... or --workspace ID (one of them)')
    const assets = v.has('assets')
      ? v
          .get('assets')!
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : null
    if (assets && !assets.length) fail('assets', 'no asset ids')
    target = {
      kind: 'api',
      apiUrl: url(v, 'api-url', ['http:', 'https:']),
      apiKey: v.get('api-key')!,
      assets,
      workspace: v.get('workspace') ?? null,
    }
  }

  const d = DEFAULTS[scenario]
  // --workspace: its editable documents, up to --rooms (or as many as there are clients)
  const explicitClients = number(v, 'clients', { min: 1, max: 200_000, int: true })
  const rooms =
    number(v, 'rooms', { min: 1, max: 100_000, int: true }) ??
    (target.kind === 'api'
      ? target.assets
        ? target.assets.length
        : Math.min(d.rooms, explicitClients ?? d.clients)
      : d.rooms)
  if (target.kind === 'api' && target.assets && rooms > target.assets.length)
    fail('rooms', `${rooms} rooms but ${target.assets.length} assets given`)
  const perRoom = number(v, 'clients-per-room', { min: 1, max: 10_000, int: true })
  if (perRoom !== undefined && v.has('clients'))
    fail('clients-per-room', 'give --clients or --clients-per-room, not both')
  const clients = perRoom !== undefined ? perRoom * rooms : (explicitClients ?? Math.max(d.clients, rooms))
  if (clients < rooms) fail('clients', `${clients} clients cannot fill ${rooms} rooms`)
  const workers = number(v, 'workers', { min: 1, max: 64, int: true }) ?? 1
  if (workers > clients) fail('workers', `more workers (${workers}) than clients (${clients})`)

  const wsOrApi = target.kind === 'signing' ? target.wsUrl : target.apiUrl
  const addrCount =
    number(v, 'source-addresses', { min: 0, max: 250, int: true }) ??
    (isLoopback(wsOrApi) ? Math.min(250, Math.ceil(clients / 250)) : 0)
  const options: LoadtestOptions = {
    target,
    scenario,
    protocol,
    rooms,
    clients,
    rate: number(v, 'rate', { min: 0, max: 1000 }) ?? d.rate,
    awarenessHz: number(v, 'awareness-hz', { min: 0, max: 100 }) ?? d.awarenessHz,
    active: number(v, 'active', { min: 0, max: 100_000, int: true }) ?? 20,
    durationSec: number(v, 'duration', { min: 0, max: 86_400 }) ?? d.durationSec,
    drainSec: number(v, 'drain', { min: 0, max: 600 }) ?? 5,
    concurrency: number(v, 'concurrency', { min: 1, max: 10_000, int: true }) ?? (scenario === 'storm' ? 100 : 50),
    connectTimeoutSec: number(v, 'connect-timeout', { min: 1, max: 600 }) ?? 30,
    workers,
    sourceAddresses: Array.from({ length: addrCount }, (_, i) => `127.0.0.${i + 2}`),
    json: v.get('json') ?? null,
    markdown: v.get('markdown') ?? null,
    thresholds: {
      maxP99Ms: number(v, 'max-p99-ms', { min: 0, max: 1e9 }) ?? null,
      minDeliveryRatio: number(v, 'min-delivery-ratio', { min: 0, max: 1 }) ?? null,
      maxErrors: number(v, 'max-errors', { min: 0, max: 1e9, int: true }) ?? null,
    },
    quiet: v.has('quiet'),
  }
  if (scenario !== 'storm' && options.durationSec === 0) fail('duration', `${scenario} needs a duration above 0`)
  if (scenario === 'typing' && options.rate === 0) fail('rate', 'typing needs keystrokes: a rate above 0')
  return Object.freeze(options)
}
