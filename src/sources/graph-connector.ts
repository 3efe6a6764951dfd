// Microsoft Graph sites listing: GET {base}/sites?search=* paged through @odata.nextLink. The bearer
// token is only ever sent to the configured origin: a nextLink pointing elsewhere is refused.
import type { SitePage, SitesConnector } from './connector.js'

const TIMEOUT_MS = 30_000
const MAX_ATTEMPTS = 5

export class GraphConnectorError extends Error {}

interface GraphSite {
  id?: unknown
  displayName?: unknown
  name?: unknown
  webUrl?: unknown
}

export class GraphSitesConnector implements SitesConnector {
  private readonly base: URL
  constructor(private readonly spec: { baseUrl: string; accessToken: string; pageSize?: number }) {
    this.base = new URL(spec.baseUrl.endsWith('/') ? spec.baseUrl : spec.baseUrl + '/')
  }

  private firstPage(): string {
    const u = new URL('sites', this.base)
    u.searchParams.set('search', '*')
    u.searchParams.set('$select', 'id,displayName,name,webUrl')
    u.searchParams.set('$top', String(this.spec.pageSize ?? 200))
    return u.toString()
  }

  async listSites(cursor: string | null, signal: AbortSignal): Promise<SitePage> {
    const url = cursor ?? this.firstPage()
    if (new URL(url).origin !== this.base.origin) throw new GraphConnectorError('nextLink leaves the Graph origin')
    const body = (await this.fetchJson(url, signal)) as { value?: unknown; '@odata.nextLink'?: unknown }
    if (!Array.isArray(body.value)) throw new GraphConnectorError('Graph response has no value array')
    const sites = (body.value as GraphSite[])
      .filter((s) => typeof s.id === 'string')
      .map((s) => ({
        id: s.id as string,
        name: String(s.displayName ?? s.name ?? s.id),
        ...(typeof s.webUrl === 'string' ? { webUrl: s.webUrl } : {}),
      }))
    const next = typeof body['@odata.nextLink'] === 'string' ? body['@odata.nextLink'] : null
    return { sites, next }
  }

  /** GET with throttling honoured: 429/503 wait Retry-After (capped) and retry, a bounded number of times. */
  private async fetchJson(url: string, signal: AbortSignal): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${this.spec.accessToken}`, accept: 'application/json' },
        signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
      })
      if (res.ok) return res.json()
      await res.body?.cancel()
      if ((res.status === 429 || res.status === 503) && attempt < MAX_ATTEMPTS) {
        const after = Number(res.headers.get('retry-after'))
        await sleep(Math.min(Number.isFinite(after) && after >= 0 ? after * 1000 : 1000 * attempt, 60_000), signal)
        continue
      }
      throw new GraphConnectorError(`Graph sites listing answered ${res.status}`)
    }
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(t)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
