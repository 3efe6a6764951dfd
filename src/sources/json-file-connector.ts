// Sites read from a JSON file (`{"sites": [{id, name, webUrl?}]}` or a bare array), served in pages
// like a real directory would be. Used by the demo world.
import { readFile } from 'node:fs/promises'
import type { SitePage, SiteRef, SitesConnector } from './connector.js'

export class JsonFileSitesConnector implements SitesConnector {
  constructor(private readonly spec: { path: string; pageSize?: number }) {}

  async listSites(cursor: string | null): Promise<SitePage> {
    const raw = JSON.parse(await readFile(this.spec.path, 'utf8')) as unknown
    const list = (Array.isArray(raw) ? raw : (raw as { sites?: unknown }).sites) as SiteRef[] | undefined
    if (!Array.isArray(list)) throw new Error(`${this.spec.path}: expected {"sites": [...]}`)
    const from = cursor ? Number(cursor) : 0
    const size = this.spec.pageSize ?? 25
    const sites = list.slice(from, from + size).map((s) => ({
      id: String(s.id),
      name: String(s.name ?? s.id),
      ...(s.webUrl ? { webUrl: String(s.webUrl) } : {}),
    }))
    return { sites, next: from + size < list.length ? String(from + size) : null }
  }
}
