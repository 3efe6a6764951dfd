// The loopback admin endpoint of a running server. LevelDB admits one process, so `tandem admin`
// run against a live data dir sends its command here. Bound to 127.0.0.1 only; the caller proves it
// can read the data dir by presenting the random secret from a 0600 file there, compared in
// constant time. The file is removed when the server closes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import type { Logger } from '../infra/log.js'
import { isAppError, publicMessage } from '../infra/errors.js'
import { parseAdminArgs } from './args.js'
import { executeAdmin, type AdminEnv } from './commands.js'
import { dataDirPath } from '../infra/data-dir.js'

const MAX_BODY = 1024 * 1024 // 1 MiB

export interface AdminEndpointInfo {
  url: string
  secret: string
  pid: number
}

const digest = (s: string) => createHash('sha256').update(s).digest()

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0
  const chunks: Buffer[] = []
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY) throw new Error('body too large')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** `env`: the running server's parts the commands act on; the endpoint's file goes in `dataDir`. */
export async function startAdminEndpoint(
  env: AdminEnv,
  o: { dataDir: string; log: Logger },
): Promise<{ close(): Promise<void> }> {
  const secret = randomBytes(32).toString('base64url')
  const expected = digest(secret)
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    const auth = req.headers.authorization ?? ''
    const given = digest(auth.startsWith('Bearer ') ? auth.slice(7) : '')
    if (!timingSafeEqual(given, expected)) return reply(401, { ok: false, error: 'bad admin secret' })
    if (req.method !== 'POST' || req.url !== '/admin') return reply(404, { ok: false, error: 'not found' })
    try {
      const { args } = JSON.parse(await readBody(req)) as { args?: unknown }
      if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
        return reply(400, { ok: false, error: 'args must be a list of strings' })
      const parsed = parseAdminArgs(args)
      const out = await executeAdmin(env, parsed)
      o.log.info({ admin: `${parsed.noun} ${parsed.verb}` }, 'admin command')
      reply(200, { ok: true, ...out })
    } catch (err) {
      if (!isAppError(err)) o.log.warn({ err: (err as Error).message }, 'admin command failed')
      reply(isAppError(err) ? err.status : 400, {
        ok: false,
        error: isAppError(err) ? publicMessage(err) : (err as Error).message,
      })
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const info: AdminEndpointInfo = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin`,
    secret,
    pid: process.pid,
  }
  const file = dataDirPath(o.dataDir, 'adminEndpoint')
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, JSON.stringify(info), { mode: 0o600 })
  await rename(tmp, file)
  let closing: Promise<void> | undefined
  return {
    close() {
      closing ??= (async () => {
        // Remove the file only while it is still ours (another server may have replaced it).
        const current = await readFile(file, 'utf8').catch(() => '')
        if (current.includes(secret)) await rm(file, { force: true })
        await new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeAllConnections()
        })
      })()
      return closing
    },
  }
}
