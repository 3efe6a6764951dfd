// A connector enumerates the sites an account can reach, one page at a time. The cursor is opaque
// to the sweep and persisted between pages, so a sweep resumes after a restart.
import type { ConnectorSpec } from './records.js'

export interface SiteRef {
  id: string
  name: string
  webUrl?: string
}

export interface SitePage {
  sites: SiteRef[]
  /** cursor of the next page; null when this was the last */
  next: string | null
}

export interface SitesConnector {
  listSites(cursor: string | null, signal: AbortSignal): Promise<SitePage>
}

export type ConnectorFactory = (spec: ConnectorSpec) => SitesConnector
