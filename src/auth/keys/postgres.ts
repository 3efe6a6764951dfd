// Signing keys in PostgreSQL (signing_keys), shared by every process on the database. The first
// process to start generates position 1 (insert-if-absent, then everyone re-reads, so all agree);
// `tandem keys rotate` appends the next position, which signs from then on. A process learns of a
// rotation done elsewhere through refresh(): on a token with an unknown kid (rate-limited) and
// periodically (server.ts).
import type { JWK } from 'jose'
import type pg from 'pg'
import type { PgPool } from '../../pg/pool.js'
import { generateSigningJwk, keyRingFromJwks, type KeyRing } from './ring.js'

const WHERE = 'signing keys in postgres-url'
/** Least time between two reloads a stranger's token can cause. */
const REFRESH_MIN_INTERVAL_MS = 1_000
const READ_TIMEOUT_MS = 10_000

export interface StoredKey {
  kid: string
  position: number
  createdMs: number
  jwk: JWK
}

/** Newest first: the first signs. */
export async function readPgKeys(pool: PgPool): Promise<StoredKey[]> {
  // A hung PostgreSQL must not hold a token check (which waits for this on an unknown kid) forever.
  const { rows } = await pool.query<{ kid: string; position: string; created_ms: string; jwk: JWK }>({
    text: 'SELECT kid, position, created_ms, jwk FROM signing_keys ORDER BY position DESC',
    query_timeout: READ_TIMEOUT_MS,
  } as pg.QueryConfig)
  return rows.map((r) => ({ kid: r.kid, position: Number(r.position), createdMs: Number(r.created_ms), jwk: r.jwk }))
}

/** The database's keys, generating the first one if there is none (the first process wins). */
export async function ensurePgKeys(pool: PgPool): Promise<StoredKey[]> {
  const keys = await readPgKeys(pool)
  if (keys.length > 0) return keys
  const jwk = await generateSigningJwk()
  await pool.query(
    'INSERT INTO signing_keys (kid, position, jwk, created_ms) VALUES ($1, 1, $2, $3) ON CONFLICT DO NOTHING',
    [jwk.kid, JSON.stringify(jwk), Date.now()],
  )
  return readPgKeys(pool)
}

export async function loadPgKeyRing(pool: PgPool): Promise<KeyRing> {
  const ring = await keyRingFromJwks(
    (await ensurePgKeys(pool)).map((k) => k.jwk),
    WHERE,
  )
  ring.refresh = refresher(ring, async () =>
    keyRingFromJwks(
      (await readPgKeys(pool)).map((k) => k.jwk),
      WHERE,
    ),
  )
  return ring
}

/**
 * A reload a caller can wait for that starts after the call (a reload already under way may have
 * read before the key the caller needs was committed, so the caller waits for the next one), and
 * never more often than REFRESH_MIN_INTERVAL_MS: unknown kids cannot hammer the database.
 */
function refresher(ring: KeyRing, load: () => Promise<KeyRing>): () => Promise<void> {
  let last = 0
  let running: Promise<void> | null = null
  let queued: Promise<void> | null = null
  const start = (): Promise<void> => {
    const p: Promise<void> = (async () => {
      const wait = last + REFRESH_MIN_INTERVAL_MS - Date.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      last = Date.now()
      const { signingKid, signingKey, publicKeys, jwks } = await load()
      Object.assign(ring, { signingKid, signingKey, publicKeys, jwks })
    })().finally(() => {
      if (running === p) running = null
    })
    running = p
    return p
  }
  return () => {
    if (!running) return start()
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = null
        return start()
      })
    return queued
  }
}

/** Adds keys whose kid is absent (tandem migrate); one statement, so all or none. */
export async function addPgKeys(pool: PgPool, keys: { jwk: JWK; position: number }[]): Promise<void> {
  if (keys.length === 0) return
  await pool.query(
    `INSERT INTO signing_keys (kid, position, jwk, created_ms)
     SELECT k, p, j::jsonb, $4 FROM unnest($1::text[], $2::bigint[], $3::text[]) AS t(k, p, j)
     ON CONFLICT DO NOTHING`,
    [keys.map((k) => k.jwk.kid), keys.map((k) => k.position), keys.map((k) => JSON.stringify(k.jwk)), Date.now()],
  )
}

/** A new signing key at the next position; keys older than the newest `keepOld` are dropped. */
export async function rotatePgKeys(pool: PgPool, schema: string, keepOld = 2): Promise<string> {
  const fresh = await generateSigningJwk()
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    // Two rotations at once would pick the same position: take turns.
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${schema}/signing-keys`])
    const { rows } = await client.query<{ p: string }>('SELECT coalesce(max(position), 0) AS p FROM signing_keys')
    const position = Number(rows[0]!.p) + 1
    await client.query('INSERT INTO signing_keys (kid, position, jwk, created_ms) VALUES ($1, $2, $3, $4)', [
      fresh.kid,
      position,
      JSON.stringify(fresh),
      Date.now(),
    ])
    await client.query('DELETE FROM signing_keys WHERE position < $1', [position - keepOld])
    await client.query('COMMIT')
    return fresh.kid!
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw err
  } finally {
    client.release()
  }
}
