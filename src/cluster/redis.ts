// Connections to Redis. The URL is a secret: errors name the setting and the cause, never the
// URL. At start an unreachable Redis is an error after connectTimeoutMs; once connected, a lost
// connection is retried for ever with capped backoff (the bus reports readiness meanwhile).
import { createHash } from 'node:crypto'
import { createClient } from '@redis/client'
import { backoffMs, type Backoff } from '../infra/backoff.js'

/** a lost connection is tried again after 50 ms, doubling up to 1 s */
const RECONNECT: Backoff = { firstMs: 50, maxMs: 1_000 }

type Strategy = (retries: number, cause: Error) => number | Error

function newClient(o: RedisConnectOptions, reconnectStrategy: Strategy, connectTimeout: number) {
  return createClient({
    url: o.url,
    name: o.name,
    disableOfflineQueue: o.disableOfflineQueue ?? false,
    // Detects a silently dead connection (no RST) between commands.
    pingInterval: o.pingIntervalMs ?? 5_000,
    socket: { connectTimeout, reconnectStrategy },
  })
}

export type RedisClient = ReturnType<typeof newClient>

export interface RedisConnectOptions {
  url: string
  /** shown in CLIENT LIST, e.g. tandem-bus-pub:<node> */
  name: string
  /** ms to reach Redis at start before giving up */
  connectTimeoutMs?: number
  /** fail commands at once while disconnected instead of queueing them */
  disableOfflineQueue?: boolean
  /** ms between PINGs (default 5 s); 0 for a connection whose own commands are that regular */
  pingIntervalMs?: number
}

/** Words fit for a log or a startup message: no URL, no password. */
export function describeRedisError(err: unknown): string {
  const e = err as { code?: string; message?: string } | undefined
  const msg = (e?.message ?? String(err)).replace(/rediss?:\/\/\S+/g, '<redis-url>')
  return e?.code && !msg.includes(e.code) ? `${msg} (${e.code})` : msg
}

export async function connectRedis(o: RedisConnectOptions): Promise<RedisClient> {
  const started = Date.now()
  const timeout = o.connectTimeoutMs ?? 5_000
  let connectedOnce = false
  let lastError: unknown
  const client = newClient(
    o,
    (retries, cause) => {
      lastError = cause
      if (!connectedOnce && Date.now() - started >= timeout) {
        return new Error(`redis-url: cannot reach Redis: ${describeRedisError(cause)}`)
      }
      return backoffMs(retries, RECONNECT)
    },
    Math.min(timeout, 5_000),
  )
  // node-redis emits every socket error; the owner watches readiness, and an unhandled 'error'
  // event would crash the process.
  client.on('error', (err: unknown) => (lastError = err))
  client.on('ready', () => (connectedOnce = true))
  try {
    await client.connect()
  } catch (err) {
    try {
      client.destroy()
    } catch {
      // already closed by the failed connect
    }
    const cause = describeRedisError(lastError ?? err)
    throw new Error(cause.startsWith('redis-url:') ? cause : `redis-url: cannot reach Redis: ${cause}`)
  }
  return client
}

/** Waits for a best-effort command at most ms (shutdown must not hang on a Redis that is gone). */
export async function atMost(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => (timer = setTimeout(r, ms))),
  ])
  clearTimeout(timer)
}

type ScriptArg = string | Buffer
const shas = new Map<string, string>()

/** EVALSHA (the script's text is sent once), and EVAL when Redis does not know it (first use, or after a restart). */
export async function runScript(
  redis: RedisClient,
  script: string,
  keyList: string[],
  args: ScriptArg[],
): Promise<unknown> {
  let sha = shas.get(script)
  if (!sha) shas.set(script, (sha = createHash('sha1').update(script).digest('hex')))
  const tail: ScriptArg[] = [String(keyList.length), ...keyList, ...args]
  try {
    return await redis.sendCommand(['EVALSHA', sha, ...tail])
  } catch (err) {
    if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err
    return await redis.sendCommand(['EVAL', script, ...tail])
  }
}
