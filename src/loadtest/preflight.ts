// Before any load: the target answers, the key or the signing keys are accepted, one socket opens.
// Whatever is wrong comes back as one line that names it; the CLI exits 2 with it.
import { get as httpGet } from 'node:http'
import { get as httpsGet } from 'node:https'
import { TandemClient, TandemError } from '@tandem/client'
import { loadKeyRing } from '../auth/keys/ring.js'
import { LoadClient } from './client.js'
import type { LoadtestOptions } from './options.js'
import type { Protocol } from './options.js'
import { apiAssets, apiTarget, clientTarget, signingTarget, type Target } from './targets.js'

const TIMEOUT_MS = 10_000

interface Checked {
  target: Target
  /** api target: the assets to load, one room each */
  assets: string[] | null
}

const said = (e: unknown) =>
  e instanceof TandemError
    ? `${e.status ? `${e.status} ` : ''}${typeof e.detail === 'string' ? e.detail : e.message}`
    : (e as Error).message

/** GET with node:http (fetch refuses some ports outright, and hides the socket's error code). */
function reach(url: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https:') ? httpsGet : httpGet)(url, { timeout: TIMEOUT_MS }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)))
    req.on('error', (e: NodeJS.ErrnoException) => reject(new Error(`cannot reach ${what}: ${e.code ?? e.message}`)))
  })
}

/** One socket, opened and synced with a token of the target, then closed. */
async function trySocket(target: Target, protocol: Protocol, where: string, hint: string): Promise<void> {
  const t = await target.token(0, 0)
  const c = new LoadClient(0, clientTarget(t, protocol), { connectTimeoutMs: TIMEOUT_MS })
  try {
    await c.connect()
  } catch (e) {
    const m = (e as Error).message
    throw new Error(
      `${where} refused the token (${m})${/HTTP 40[13]|4401|permission denied/.test(m) ? `: ${hint}` : ''}`,
    )
  } finally {
    await c.close()
  }
}

export async function preflight(o: LoadtestOptions): Promise<Checked> {
  if (o.target.kind === 'signing') {
    const t = o.target
    const keys = await loadKeyRing('', t.signingKeys).catch((e: Error) => {
      throw new Error(`--signing-keys ${t.signingKeys}: ${e.message.replace(`${t.signingKeys}: `, '')}`)
    })
    const health = await reach(`${t.wsUrl.replace(/^ws/, 'http')}/healthz`, t.wsUrl)
    if (health !== 200) throw new Error(`${t.wsUrl} answered /healthz with ${health}: is it a Tandem collab listener?`)
    const target = await signingTarget(t, o.rooms, keys)
    await trySocket(target, o.protocol, t.wsUrl, 'are --signing-keys the keys this deployment signs with?')
    return { target, assets: null }
  }
  const t = o.target
  await reach(`${t.apiUrl}/healthz`, t.apiUrl)
  const client = new TandemClient({ baseUrl: t.apiUrl, apiKey: t.apiKey })
  await client.me().catch((e: unknown) => {
    throw new Error(
      e instanceof TandemError && e.status === 401
        ? `--api-key refused by ${t.apiUrl} (${said(e)})`
        : `${t.apiUrl}: GET /api/v0/me: ${said(e)}`,
    )
  })
  const assets = await apiAssets(client, t, o.rooms).catch((e: unknown) => {
    throw new Error(`--workspace ${t.workspace}: ${said(e)}`)
  })
  for (const id of assets) {
    const token = await client.collabToken(id, { access: 'edit' }).catch((e: unknown) => {
      throw new Error(`--assets ${id}: collab-token refused (${said(e)})`)
    })
    if (token.access_type !== 'rw')
      throw new Error(
        `--assets ${id}: the key may only view this document (token access ${token.access_type}); the load writes`,
      )
  }
  const target = apiTarget(t, assets)
  await trySocket(target, o.protocol, 'the collab listener', 'the token minted by collab-token was not accepted')
  return { target, assets }
}
