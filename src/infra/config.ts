// Configuration: one table of settings, read once (flags > TANDEM_* environment > defaults),
// validated, frozen and passed down. No other module reads process.env.
import { resolve } from 'node:path'
import { ArgvError, readArgv } from './argv.js'
import { TrustedProxies } from './client-address.js'

type Kind = 'string' | 'int' | 'number' | 'bool' | 'list' | 'enum'

interface Setting<K extends Kind = Kind, V extends string = string> {
  kind: K
  flag: string // --flag-name
  env: string // TANDEM_*
  default: unknown
  min?: number
  /** enum: the values allowed */
  values?: readonly V[]
  help: string
}

const s = <K extends Kind>(kind: K, flag: string, def: unknown, help: string, min?: number): Setting<K> => ({
  kind,
  flag,
  env: 'TANDEM_' + flag.toUpperCase().replace(/-/g, '_'),
  default: def,
  help,
  ...(min === undefined ? {} : { min }),
})

/** A setting with a fixed set of values: validated at start, typed as their union. */
const e = <const V extends string>(flag: string, values: readonly V[], def: V, help: string): Setting<'enum', V> => ({
  ...s('enum', flag, def, help),
  values,
})

// Every limit is a named setting with its unit in the name or the help text.
const SETTINGS = {
  dataDir: s('string', 'data-dir', './data', 'directory holding LevelDB, PGlite databases and signing keys'),
  host: s('string', 'host', '127.0.0.1', 'interface both listeners bind to'),
  collabPort: s('int', 'collab-port', 1234, 'collab listener port (0 = any free port)', 0),
  apiPort: s('int', 'api-port', 8080, 'api listener port (0 = any free port)', 0),
  demo: s('bool', 'demo', false, 'load the demo world once per data dir and print its key and ids'),
  publicRestUrl: s(
    'string',
    'public-rest-url',
    '',
    'REST base URL put in minted tokens (default: the collab listener)',
  ),
  publicWsUrl: s(
    'string',
    'public-ws-url',
    '',
    'WebSocket base URL put in minted tokens (default: the collab listener)',
  ),
  signingKeys: s('string', 'signing-keys', '', 'JWKS file of private Ed25519 keys with kid; the first signs'),
  corsOrigins: s('list', 'cors-origins', ['*'], 'comma list of origins allowed by CORS on the collab REST API'),
  logLevel: e(
    'log-level',
    ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'],
    'info',
    'pino log level (silent, error, warn, info, debug)',
  ),
  transport: e(
    'transport',
    ['auto', 'uws', 'ws'],
    'auto',
    "what carries the collab listener: uws (uWebSockets.js, where its prebuilt binary loads), ws (the ws package on Node's own http server, every Node version and platform), or auto (uws when its binary loads on this Node.js, else ws); the choice is logged at start",
  ),
  listenRetrySec: s(
    'int',
    'listen-retry-sec',
    90,
    'seconds a listener keeps retrying (with backoff, logged) while its port is busy before start fails; 0 = fail at once',
    0,
  ),
  fsync: s(
    'bool',
    'fsync',
    true,
    'fsync every document write cycle (LevelDB sync): acknowledged updates survive power loss and kernel crashes, not only a killed process',
  ),
  docStorage: e(
    'doc-storage',
    ['leveldb', 'memory'],
    'leveldb',
    'where documents live: leveldb (durable) or memory (lost on exit; for tests and measurements)',
  ),
  redisUrl: s(
    'string',
    'redis-url',
    '',
    'Redis URL (redis:// or rediss://): makes the process one node of a cluster; needs --postgres-url (a secret: never logged)',
  ),
  postgresUrl: s(
    'string',
    'postgres-url',
    '',
    'PostgreSQL URL: documents, history, control plane and signing keys live there instead of LevelDB (a secret: never logged)',
  ),
  postgresSchema: s('string', 'postgres-schema', 'tandem', "schema holding Tandem's own tables in --postgres-url"),
  postgresPoolSize: s('int', 'postgres-pool-size', 10, 'connections to --postgres-url held by one process', 2),
  postgresQueryTimeoutMs: s(
    'int',
    'postgres-query-timeout-ms',
    30_000,
    'ms a query to --postgres-url (documents, control plane) may take before its connection counts as lost (closed; document writes are retried, control-plane calls answer 503)',
    100,
  ),

  // collab limits
  maxMessageBytes: s(
    'int',
    'max-message-bytes',
    64 * 1024 * 1024,
    'largest WebSocket message (bytes); larger closes 1009 (a provider holding a whole document sends it in one sync message)',
    1024,
  ),
  memoryBudgetMb: s(
    'int',
    'memory-budget-mb',
    0,
    "MiB of loaded documents, held and unwritten updates, cached sync frames and transient Y.Docs; past it idle rooms unload, then first joins get 1013 'server at capacity' (REST 503); 0 = half the V8 heap limit",
    0,
  ),
  maxDocBytes: s(
    'int',
    'max-doc-bytes',
    64 * 1024 * 1024,
    'largest document state (bytes); updates growing past it are refused',
    1024,
  ),
  maxBackpressureBytes: s(
    'int',
    'max-backpressure-bytes',
    4 * 1024 * 1024,
    'bytes queued to a slow socket before it is closed with 1013',
    1024,
  ),
  idleTimeoutSec: s('int', 'idle-timeout-sec', 120, 'seconds without any frame before a socket is closed', 8),
  maxConnectionsPerRoom: s(
    'int',
    'max-connections-per-room',
    2000,
    'sockets one room admits; more are closed with 1013 room is full (Hocuspocus: PermissionDenied)',
    1,
  ),
  hocuspocusMaxDocs: s(
    'int',
    'hocuspocus-max-docs',
    256,
    'documents one Hocuspocus socket (root URL) may carry at once; more are refused with PermissionDenied',
    1,
  ),
  hocuspocusUnauthSec: s(
    'int',
    'hocuspocus-unauth-sec',
    10,
    'seconds a Hocuspocus socket may stay open before one of its documents is authenticated; then closed 1008',
    1,
  ),
  hocuspocusUnauthBytes: s(
    'int',
    'hocuspocus-unauth-bytes',
    1024 * 1024,
    'bytes a Hocuspocus socket may send before one of its documents is authenticated; more closes it 1008',
    1024,
  ),
  hocuspocusUnauthMessages: s(
    'int',
    'hocuspocus-unauth-messages',
    1000,
    'messages a Hocuspocus socket may send before one of its documents is authenticated; more closes it 1008',
    1,
  ),
  hocuspocusStatelessMaxBytes: s(
    'int',
    'hocuspocus-stateless-max-bytes',
    64 * 1024,
    "largest Hocuspocus stateless payload (bytes) relayed to a document's other peers; larger is refused",
    1,
  ),
  hocuspocusReauthSec: s(
    'int',
    'hocuspocus-reauth-sec',
    30,
    'seconds a Hocuspocus document whose token expired waits for a fresh one (asked of the provider) before it is refused',
    1,
  ),
  wsMessagesPerSec: s(
    'int',
    'ws-messages-per-sec',
    200,
    'frames per second one socket may send on average (token bucket); over it closes 1008; 0 = no limit',
    0,
  ),
  wsMessageBurst: s(
    'int',
    'ws-message-burst',
    2000,
    'frames one socket may send at once above the average (bucket size)',
    1,
  ),
  wsBytesPerSec: s(
    'int',
    'ws-bytes-per-sec',
    1024 * 1024,
    'bytes per second one socket may send on average (token bucket); over it closes 1008; 0 = no limit',
    0,
  ),
  wsByteBurst: s(
    'int',
    'ws-byte-burst',
    64 * 1024 * 1024,
    'bytes one socket may send at once above the average (bucket size; at least max-message-bytes)',
    1024,
  ),
  awarenessWindowMs: s(
    'int',
    'awareness-window-ms',
    50,
    'longest ms an awareness change (cursor, name) waits to go out with the others of its room: a busy room sends one awareness frame per this time to everyone, so its cost grows with observers, not observers x changes; a quiet room sends a change at once (docs/perf/presence.md)',
    1,
  ),
  awarenessWindowMinMs: s(
    'int',
    'awareness-window-min-ms',
    5,
    "the awareness window's first step (ms) when a room gets busy: it doubles up to awareness-window-ms while frames keep coming closer than that, and drops back after a lull",
    1,
  ),
  awarenessMaxStateBytes: s(
    'int',
    'awareness-max-state-bytes',
    64 * 1024,
    'largest awareness state of one client (bytes of JSON); a frame carrying a larger one is refused (4400, or 400 over REST)',
    16,
  ),
  awarenessPerSec: s(
    'int',
    'awareness-per-sec',
    60,
    'awareness entries (client states) one socket may send per second on average (token bucket); over it closes 1008; 0 = no limit',
    0,
  ),
  awarenessBurst: s(
    'int',
    'awareness-burst',
    300,
    'awareness entries one socket may send at once above the average (bucket size)',
    1,
  ),
  upgradesPerSecPerIp: s(
    'int',
    'upgrades-per-sec-per-ip',
    50,
    'WebSocket upgrade attempts per second one client address may make on average; more get 429 before the upgrade; 0 = no limit',
    0,
  ),
  upgradeBurstPerIp: s(
    'int',
    'upgrade-burst-per-ip',
    500,
    'WebSocket upgrade attempts one client address may make at once (bucket size)',
    1,
  ),
  authFailuresPerMinPerIp: s(
    'int',
    'auth-failures-per-min-per-ip',
    30,
    'failed authentications (bad token or API key) one client address may make per minute, also the burst; past it 429 with Retry-After on both listeners; 0 = no limit',
    0,
  ),
  roomUnloadDelayMs: s('int', 'room-unload-delay-ms', 10_000, 'ms a room stays loaded after its last client leaves', 0),
  agentPresenceTtl: s(
    'int',
    'agent-presence-ttl',
    30,
    "seconds an agent stays in a document's awareness (its name and caret) after its last call there, unless it says it is done",
    1,
  ),
  syncCacheMs: s(
    'int',
    'sync-cache-ms',
    30_000,
    'ms a room keeps its encoded full state (the sync answer for a client that has nothing) after the last join that used it, once joins repeat (a join within this time of the one before, or while it is being sent): a document joined once keeps no copy; 0 = only while such joins overlap. Longer saves the encode (ms per MB) for every join that follows, at the cost of a copy of the document per room meanwhile',
    0,
  ),
  commitIntervalMs: s(
    'int',
    'commit-interval-ms',
    10,
    'least ms between the starts of two document write cycles: what arrives meanwhile shares one storage write and one merged broadcast per room (less CPU per delivery, up to this much more latency); 0 = back to back',
    0,
  ),
  compactThreshold: s(
    'int',
    'compact-threshold',
    500,
    'updates in a document log before it is compacted into a snapshot',
    2,
  ),
  maxRestBodyBytes: s('int', 'max-rest-body-bytes', 64 * 1024 * 1024, 'largest collab REST request body (bytes)', 1024),
  maxReadChars: s(
    'int',
    'max-read-chars',
    80_000,
    'most characters one part read of a document answers (content view=section|range|find|outline, MCP read_document modes; about 20k tokens); past it the answer says truncated and gives a next cursor',
    1000,
  ),
  maxOpenSuggestions: s(
    'int',
    'max-open-suggestions',
    100,
    'open suggestions a document may hold (docs/suggestions.md); one more is 409 until one is decided',
    1,
  ),
  tokenTtlSec: s('int', 'token-ttl-sec', 600, 'lifetime of minted capability tokens (seconds)', 10),
  tokenClockSkewSec: s(
    'int',
    'token-clock-skew-sec',
    60,
    "seconds a token's iat may lie ahead of our clock; further ahead is refused as invalid",
    0,
  ),
  expiredUpgradesPerMin: s(
    'int',
    'expired-upgrades-per-min',
    10,
    'upgrades per client IP per minute accepted with an expired token only to be closed with 4401 (browsers cannot read a 401); more get 401 before the upgrade',
    0,
  ),
  trustedProxies: s(
    'list',
    'trusted-proxies',
    [],
    'comma list of load balancer addresses and CIDRs (IPv4, IPv6) whose X-Forwarded-For / Forwarded: for= name the client; every per-address limit and the access log then use that client address (empty = the peer address is the client; headers are ignored)',
  ),
  wsOrigins: s(
    'list',
    'ws-origins',
    [],
    'comma list of Origins allowed to open WebSockets (empty = any); others get 403 before the upgrade; requests without Origin (non-browser clients) pass',
  ),
  revocationRefreshMs: s(
    'int',
    'revocation-refresh-ms',
    1000,
    'ms between re-reads of the token deny-list (catches revocations written by other processes sharing the control plane)',
    50,
  ),
  historyRetentionDays: s(
    'int',
    'history-retention-days',
    30,
    'days of document history kept for activity/changeset',
    1,
  ),
  historyMaxLimit: s(
    'int',
    'history-max-limit',
    1000,
    'largest activity limit accepted (entries); larger is capped',
    1,
  ),
  historyCheckpointEvery: s(
    'int',
    'history-checkpoint-every',
    1000,
    'log entries a document history applies before its checkpoint is rewritten',
    1,
  ),

  // api limits
  maxBodyBytes: s(
    'int',
    'max-body-bytes',
    1024 * 1024,
    'largest /api/v0 request body (bytes); larger is 413 (/mcp takes twice --max-doc-bytes plus this)',
    1024,
  ),
  maxLimit: s('int', 'max-limit', 1000, 'largest limit accepted when reading rows', 1),
  maxInsertRows: s('int', 'max-insert-rows', 1000, 'most rows one insert may carry', 1),
  maxFilterDepth: s(
    'int',
    'max-filter-depth',
    64,
    'deepest nesting of and/or trees in a database read query string (levels); deeper is 400',
    1,
  ),
  maxJsonDepth: s(
    'int',
    'max-json-depth',
    128,
    'deepest nesting of arrays and objects in a JSON request body (levels, /api/v0 and collab REST); deeper is refused before parsing',
    8,
  ),

  // database assets
  dbSchemas: s(
    'list',
    'db-schemas',
    ['public'],
    'comma list of schemas whose tables database assets expose; others do not exist for callers',
  ),
  dbStatementTimeoutMs: s(
    'int',
    'db-statement-timeout-ms',
    15_000,
    'query deadline (ms): statement_timeout on postgres, worker termination on PGlite',
    100,
  ),
  dbConcurrency: s(
    'int',
    'db-concurrency',
    4,
    'statements running at once per database (postgres pool size; PGlite runs one at a time)',
    1,
  ),
  dbQueueLimit: s(
    'int',
    'db-queue-limit',
    64,
    'statements waiting per database; more are refused with 503 (saturated) before running',
    0,
  ),
  dbStartWaitMs: s(
    'int',
    'db-start-wait-ms',
    5_000,
    'ms a request waits for a starting or resuming database before answering 503',
    0,
  ),
  dbRetryAfterSec: s('int', 'db-retry-after-sec', 1, 'Retry-After (seconds) sent with database 503s', 1),
  dbConnectTimeoutMs: s(
    'int',
    'db-connect-timeout-ms',
    5_000,
    'ms to open a connection to a postgres-provider server before it counts as unreachable',
    100,
  ),
  pgliteMaxOpen: s(
    'int',
    'pglite-max-open',
    8,
    'PGlite databases open at once (memory budget, ~100 MiB each); the least recently used idle one is suspended to open another',
    1,
  ),
  pgliteIdleMs: s(
    'int',
    'pglite-idle-ms',
    300_000,
    'ms without statements before an open PGlite database is suspended (closed; resumes on the next request)',
    100,
  ),
  pgliteSharedBuffersMb: s('int', 'pglite-shared-buffers-mb', 16, 'shared_buffers of each PGlite database (MiB)', 1),

  // control plane
  toolCatalogFile: s(
    'string',
    'tool-catalog',
    '',
    'JSON file of the tool catalog {"tools":[{"tool_id","base"}]} (default: built in)',
  ),
  siteSweepDelayMs: s(
    'int',
    'site-sweep-delay-ms',
    250,
    'pause between site-sweep steps: pages listed, sites made searchable (ms)',
    0,
  ),
  // search (docs/search.md)
  searchIndex: e(
    'search-index',
    ['on', 'off'],
    'on',
    'full-text search of workspaces (docs/search.md): on keeps an index of every document (PostgreSQL on --postgres-url, else PGlite under the data dir, a worker thread of ~100 MB); off answers search with 503 and indexes nothing (after running off, `tandem admin search rebuild`)',
  ),
  searchDebounceMs: s(
    'int',
    'search-debounce-ms',
    1000,
    "ms a document's committed changes gather before the search index reads it again: at most one index pass per document per this time, the index current within this and one pass",
    0,
  ),
  // webhooks (docs/webhooks.md)
  webhookDebounceMs: s(
    'int',
    'webhook-debounce-ms',
    2000,
    'ms a document.updated event gathers changes: at most one per document per this time, at least one this long after a change',
    0,
  ),
  webhookTimeoutMs: s(
    'int',
    'webhook-timeout-ms',
    10_000,
    'ms a webhook receiver has to answer 2xx before the attempt counts as failed',
    100,
  ),
  webhookRetryHours: s(
    'number',
    'webhook-retry-hours',
    24,
    'hours (decimals allowed) a delivery is retried with exponential backoff before it is marked failed',
    0,
  ),
  webhookRefreshSec: s(
    'int',
    'webhook-refresh-sec',
    5,
    'seconds between re-reads of the webhook registrations; a fallback, since in a cluster a node announces its changes to the others at once',
    1,
  ),
  webhookAllowPrivate: s(
    'bool',
    'webhook-allow-private',
    false,
    'allow webhook URLs on loopback, link-local and private addresses (checked at registration and at every delivery)',
  ),
  siteProvisioningWindowSec: s(
    'int',
    'site-provisioning-window-sec',
    600,
    'seconds a finished site sweep still shows in /me/sources',
    0,
  ),
} satisfies Record<string, Setting>

type Settings = typeof SETTINGS
type ValueOfKind<K extends Kind> = K extends 'int' | 'number'
  ? number
  : K extends 'bool'
    ? boolean
    : K extends 'list'
      ? string[]
      : string
type ValueOf<S> =
  S extends Setting<'enum', infer V>
    ? V
    : S extends Setting<'list', infer V>
      ? string extends V
        ? string[]
        : readonly V[]
      : S extends Setting<infer K>
        ? ValueOfKind<K>
        : never
export type Config = Readonly<{ [P in keyof Settings]: ValueOf<Settings[P]> }>

export class ConfigError extends Error {}

function parseValue(name: string, setting: Setting, raw: string | boolean): unknown {
  switch (setting.kind) {
    case 'bool':
      if (typeof raw === 'boolean') return raw
      if (/^(1|true|yes|on)$/i.test(raw)) return true
      if (/^(0|false|no|off)$/i.test(raw)) return false
      throw new ConfigError(`${name}: expected a boolean, got ${JSON.stringify(raw)}`)
    case 'int': {
      const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN
      if (!Number.isSafeInteger(n))
        throw new ConfigError(`${name}: expected a non-negative integer, got ${JSON.stringify(raw)}`)
      if (setting.min !== undefined && n < setting.min)
        throw new ConfigError(`${name}: must be at least ${setting.min}, got ${n}`)
      return n
    }
    case 'number': {
      const n = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN
      if (!Number.isFinite(n))
        throw new ConfigError(`${name}: expected a non-negative number, got ${JSON.stringify(raw)}`)
      if (setting.min !== undefined && n < setting.min)
        throw new ConfigError(`${name}: must be at least ${setting.min}, got ${n}`)
      return n
    }
    case 'list':
      return String(raw)
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    case 'enum':
      if (typeof raw !== 'string' || !setting.values!.includes(raw))
        throw new ConfigError(`${name}: expected ${setting.values!.join(' or ')}, got ${JSON.stringify(raw)}`)
      return raw
    default:
      if (typeof raw !== 'string') throw new ConfigError(`${name}: expects a value`)
      return raw
  }
}

/** An override (tests, embedding code) passes the same checks as a flag's parsed value. */
function checkOverride(key: string, setting: Setting, value: unknown): unknown {
  const bad = (expected: string) => new ConfigError(`${key}: expected ${expected}, got ${JSON.stringify(value)}`)
  switch (setting.kind) {
    case 'bool':
      if (typeof value !== 'boolean') throw bad('a boolean')
      return value
    case 'int':
    case 'number':
      if (
        typeof value !== 'number' ||
        (setting.kind === 'int' ? !Number.isSafeInteger(value) : !Number.isFinite(value))
      )
        throw bad(`a ${setting.kind === 'int' ? 'whole ' : ''}number`)
      if (setting.min !== undefined && value < setting.min)
        throw new ConfigError(`${key}: must be at least ${setting.min}, got ${value}`)
      return value
    case 'list':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw bad('a list of strings')
      return value
    case 'enum':
      if (typeof value !== 'string' || !setting.values!.includes(value)) throw bad(setting.values!.join(' or '))
      return value
    default:
      if (typeof value !== 'string') throw bad('a string')
      return value
  }
}

/**
 * Settings that do nothing any more, still accepted (flag or environment) so existing command
 * lines and deployments start; each given says so as a Node DeprecationWarning.
 */
const RETIRED: readonly { flag: string; env: string; why: string }[] = [
  {
    flag: 'history-cache-docs',
    env: 'TANDEM_HISTORY_CACHE_DOCS',
    why: 'a history is built per request and dropped after',
  },
]

function warnRetired(argv: Map<string, string>, env: NodeJS.ProcessEnv): void {
  for (const r of RETIRED) {
    const given = argv.delete(r.flag) ? `--${r.flag}` : env[r.env] !== undefined && env[r.env] !== '' ? r.env : null
    if (given)
      process.emitWarning(`${given} does nothing (${r.why}); remove it`, {
        type: 'DeprecationWarning',
        code: `TANDEM_RETIRED_${r.env}`,
      })
  }
}

/** `--flag value`, `--flag=value`, a bare `--bool`; an unknown flag or a bare argument is refused. */
function readFlags(argv: string[]): Map<string, string> {
  const settings = Object.values(SETTINGS) as Setting[]
  try {
    const booleans = settings.filter((st) => st.kind === 'bool').map((st) => st.flag)
    const strings = [...settings.filter((st) => st.kind !== 'bool').map((st) => st.flag), ...RETIRED.map((r) => r.flag)]
    return readArgv(argv, { booleans, strings, others: 'refuse' }).values
  } catch (err) {
    if (!(err instanceof ArgvError)) throw err
    throw new ConfigError(err.kind === 'unknown' ? `unknown option --${err.arg}` : err.message)
  }
}

/** Reads flags (already split from argv) and the environment; throws ConfigError naming the bad setting. */
export function loadConfig(argv: string[] = [], env: NodeJS.ProcessEnv = {}, overrides: Partial<Config> = {}): Config {
  const flags = readFlags(argv)
  warnRetired(flags, env)
  const out: Record<string, unknown> = {}
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
    if (key in overrides) out[key] = checkOverride(key, setting, (overrides as Record<string, unknown>)[key])
    else if (flags.has(setting.flag)) out[key] = parseValue(`--${setting.flag}`, setting, flags.get(setting.flag)!)
    else if (env[setting.env] !== undefined && env[setting.env] !== '')
      out[key] = parseValue(setting.env, setting, env[setting.env]!)
    else out[key] = setting.default
  }
  out.dataDir = resolve(String(out.dataDir))
  const cfg = out as Config
  for (const url of [cfg.publicRestUrl, cfg.publicWsUrl]) {
    if (url && !/^(https?|wss?):\/\/[^\s]+$/.test(url))
      throw new ConfigError(`public URL ${JSON.stringify(url)} is not an http(s)/ws(s) URL`)
  }
  if (cfg.wsBytesPerSec > 0 && cfg.wsByteBurst < cfg.maxMessageBytes) {
    throw new ConfigError(
      `ws-byte-burst (${cfg.wsByteBurst}) must be at least max-message-bytes (${cfg.maxMessageBytes}): a largest message could never pass`,
    )
  }
  if (cfg.awarenessWindowMinMs > cfg.awarenessWindowMs) {
    throw new ConfigError(
      `awareness-window-min-ms (${cfg.awarenessWindowMinMs}) must be at most awareness-window-ms (${cfg.awarenessWindowMs})`,
    )
  }
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(cfg.postgresSchema)) {
    throw new ConfigError(
      `postgres-schema: expected a lower-case identifier ([a-z_][a-z0-9_]*), got ${JSON.stringify(cfg.postgresSchema)}`,
    )
  }
  if (cfg.postgresUrl && !/^postgres(ql)?:\/\//.test(cfg.postgresUrl)) {
    // The value is a secret: name the setting, never echo it.
    throw new ConfigError('postgres-url: expected a postgres:// or postgresql:// URL')
  }
  if (cfg.redisUrl && !/^rediss?:\/\//.test(cfg.redisUrl)) {
    throw new ConfigError('redis-url: expected a redis:// or rediss:// URL')
  }
  if (cfg.redisUrl && !cfg.postgresUrl) {
    // Cluster nodes share documents and the control plane: LevelDB admits one process.
    throw new ConfigError(
      '--redis-url (cluster mode) needs --postgres-url: every node keeps documents and the control plane in PostgreSQL',
    )
  }
  try {
    TrustedProxies.parse(cfg.trustedProxies)
  } catch (err) {
    throw new ConfigError(`trusted-proxies: ${(err as Error).message}`)
  }
  return Object.freeze(cfg)
}

/** Text for `tandem --help` and the README's configuration table. */
/** One line per setting; `only` (flag names) narrows it to what a command reads. */
/** Every setting's flag, without the dashes (for "did you mean" on an unknown option). */
export const SETTING_FLAGS: readonly string[] = Object.values(SETTINGS).map((st: Setting) => st.flag)

export function settingsHelp(only?: readonly string[]): string {
  return Object.values(SETTINGS)
    .filter((st: Setting) => !only || only.includes(st.flag))
    .map(
      (st: Setting) =>
        `  --${st.flag.padEnd(26)} ${st.env.padEnd(34)} ${st.help} (default ${JSON.stringify(st.default)})`,
    )
    .join('\n')
}
