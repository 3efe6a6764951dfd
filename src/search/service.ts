// Search as the rest of the process asks for it: who may see what (the same rule as a read, through
// control/assets.ts), the query's meaning (query-text.ts), a page of the index's answer with the
// titles as the control plane has them now.
import { MAX_SEARCH_OFFSET } from '@tandem/api/v0/search'
import { getWorkspace, roleOf } from '../control/workspaces.js'
import { viewableAssets } from '../control/assets.js'
import type { ControlStore } from '../control/store.js'
import { AppError } from '../infra/errors.js'
import { parseQuery } from './query-text.js'
import type { Logger } from '../infra/log.js'
import type { SearchHit, SearchIndex } from './search-index.js'
import type { SearchIndexer } from './indexer.js'

interface SearchResult {
  doc_id: string
  title: string
  type: string
  /** where the words were found: the title, a block of the text, a database table's name */
  match: 'title' | 'text' | 'table'
  /**
   * the matching top-level block's id (for read_document section / edit_document); null for a title, a table, a
   * plain-text document
   */
  block: string | null
  /** database assets: the matching table */
  table?: string
  /** the matching words between « and » */
  snippet: string
  rank: number
}

interface SearchPage {
  results: SearchResult[]
  limit: number
  offset: number
  /** the offset of the next page, when there is one */
  next?: number
}

export interface Search {
  readonly engine: 'postgres' | 'pglite' | 'off'
  /** absent when search is off */
  readonly indexer?: SearchIndexer
  query(o: { user: string; workspaceId: string; q: string; limit: number; offset: number }): Promise<SearchPage>
}

export function searchOver(control: ControlStore, index: SearchIndex, indexer: SearchIndexer, log: Logger): Search {
  return {
    engine: index.db.engine,
    indexer,
    async query({ user, workspaceId, q, limit, offset }) {
      const query = parseQuery(q)
      if (!(await getWorkspace(control, workspaceId))) throw new AppError('not_found', 'Workspace not found')
      if (!(await roleOf(control, workspaceId, user))) throw new AppError('forbidden', 'Not a member of this workspace')
      const viewable = new Map((await viewableAssets(control, workspaceId, user)).map(({ asset }) => [asset.id, asset]))
      // one more than the page: whether there is a next one, with no count of anything
      let hits: SearchHit[]
      try {
        hits = await index.search({ workspaceId, viewable: [...viewable.keys()], query, limit: limit + 1, offset })
      } catch (err) {
        // the engine is starting, restarting after a deadline, or unreachable: worth a retry
        log.error({ err }, 'search query failed')
        throw new AppError('unavailable', 'search index unavailable; retry shortly')
      }
      const results = hits.slice(0, limit).flatMap((h): SearchResult[] => {
        const asset = viewable.get(h.assetId)
        if (!asset) return []
        const match = h.kind === 'block' ? 'text' : h.kind
        return [
          {
            doc_id: h.assetId,
            title: asset.title,
            type: asset.type,
            match,
            block: h.kind === 'block' ? h.block : null,
            ...(h.kind === 'table' && h.block ? { table: h.block } : {}),
            snippet: h.snippet,
            rank: h.rank,
          },
        ]
      })
      const more = hits.length > limit && offset + limit <= MAX_SEARCH_OFFSET
      return { results, limit, offset, ...(more ? { next: offset + limit } : {}) }
    },
  }
}

/** --search-index off: nothing indexed, every search a 503 that says why. */
export const searchOff: Search = {
  engine: 'off',
  query: () => Promise.reject(new AppError('unavailable', 'search is off on this server (--search-index off)')),
}
