// Database assets on Tandem's own PostgreSQL (--postgres-url): each asset gets a database and a
// login role of its own. A database, not a schema, per asset: a connection can never name another
// database's tables (PostgreSQL has no cross-database references), its catalog lists only its own
// objects, and each asset keeps the `public` schema, `--db-schemas` and `schema.table` paths exactly
// as an embedded or external database has them. The role owns its database and nothing else: no
// superuser, CREATEDB, CREATEROLE, replication or RLS bypass, no membership but its database's
// implicit pg_database_owner (which owns `public` from PostgreSQL 15 on); PUBLIC loses CONNECT and TEMPORARY
// on the asset's database, so other assets' roles cannot even connect to it; Tandem's schema grants
// nothing to PUBLIC. The password is random, sent to the server only as a SCRAM verifier, and kept
// in the control plane (login-record.ts); the URL built from it lives only in the asset's pool.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { fromDriverError } from '../db-error.js'
import { ident, managedName } from './names.js'
import { scramVerifier } from './scram.js'

export interface ManagedLogin {
  database: string
  role: string
  /** a secret */
  password: string
}

export interface ManagedOptions {
  /** Tandem's own --postgres-url (a secret): its user must have CREATEDB and CREATEROLE, or be a superuser */
  url: string
  /** Tandem's --postgres-schema, part of every name */
  schema: string
  connectTimeoutMs: number
}

export class ManagedPostgres {
  constructor(private readonly o: ManagedOptions) {}

  /**
   * Creates the asset's role and database, or repairs them after an interrupted creation (the role
   * gets a new password, a missing database is created). Callers hold the asset's serial lock, so
   * two creations of one asset never interleave. `fresh`: an existing database of that name (a
   * copy `tandem migrate` did not finish) is dropped first.
   */
  async provision(assetId: string, o: { fresh?: boolean } = {}): Promise<ManagedLogin> {
    const name = managedName(this.o.schema, assetId)
    const password = randomBytes(24).toString('base64url')
    const client = new pg.Client({
      connectionString: this.o.url,
      connectionTimeoutMillis: this.o.connectTimeoutMs,
      application_name: 'tandem-provision',
    })
    client.on('error', () => undefined)
    try {
      await client.connect()
      const role = ident(name)
      const has = async (sql: string) => ((await client.query(sql, [name])).rowCount ?? 0) > 0
      const verb = (await has('SELECT 1 FROM pg_roles WHERE rolname = $1')) ? 'ALTER' : 'CREATE'
      await client.query(
        `${verb} ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${client.escapeLiteral(scramVerifier(password))}`,
      )
      // CREATE DATABASE ... OWNER needs membership in the owner unless Tandem's user is a superuser.
      const { rows } = await client.query<{ rolsuper: boolean }>(
        'SELECT rolsuper FROM pg_roles WHERE rolname = current_user',
      )
      if (!rows[0]?.rolsuper) await client.query(`GRANT ${role} TO CURRENT_USER`)
      if (o.fresh) await client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`)
      if (!(await has('SELECT 1 FROM pg_database WHERE datname = $1')))
        await client.query(`CREATE DATABASE ${ident(name)} OWNER ${role}`)
      await client.query(`REVOKE ALL ON DATABASE ${ident(name)} FROM PUBLIC`)
      return { database: name, role: name, password }
    } catch (e) {
      // The driver's message names no URL; the SQLSTATE says what was refused (42501: privileges).
      throw fromDriverError(e)
    } finally {
      await client.end().catch(() => undefined)
    }
  }

  /**
   * Erases a hard-deleted asset's database and role. Idempotent: every cluster node runs it when it
   * learns the deletion, so a database or role already gone (even by a node racing this one) is fine.
   */
  async drop(assetId: string): Promise<void> {
    const name = managedName(this.o.schema, assetId)
    const client = new pg.Client({
      connectionString: this.o.url,
      connectionTimeoutMillis: this.o.connectTimeoutMs,
      application_name: 'tandem-provision',
    })
    client.on('error', () => undefined)
    const gone = (e: unknown) => {
      // 3D000 database, 42704 role: already dropped by another node between its check and ours
      if (!['3D000', '42704'].includes((e as { code?: string }).code ?? '')) throw fromDriverError(e)
    }
    try {
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`).catch(gone)
      await client.query(`DROP ROLE IF EXISTS ${ident(name)}`).catch(gone)
    } catch (e) {
      throw fromDriverError(e)
    } finally {
      await client.end().catch(() => undefined)
    }
  }

  /** The URL an asset's pool connects with: Tandem's server and settings, the asset's database and role. */
  connectionUrl(login: ManagedLogin): string {
    const u = new URL(this.o.url)
    u.username = ''
    u.password = ''
    u.pathname = '/' + login.database
    // Query parameters win over anything left in the URL (pg-connection-string), host= sockets included.
    u.searchParams.set('user', login.role)
    u.searchParams.set('password', login.password)
    return u.href
  }
}
