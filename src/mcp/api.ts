// The endpoints the MCP tools map onto, called over HTTP with the caller's API key: the /api/v0
// routes, and the document's collab REST with an agent's token minted for the call. Every asset id
// is first checked to be in the session's workspace (session-assets.ts). A refusal becomes an Error
// whose message is the endpoint's status and reason, for the agent to read.
import type { PresenceShow } from '@tandem/api/content'
import type { DocToken, SessionAssets } from './session-assets.js'

const seg = encodeURIComponent

export interface ContentWrite {
  format: 'markdown' | 'prosemirror' | 'text'
  content: unknown
  base?: string | undefined
  root?: string | undefined
  attributions: Record<string, string>
}

export interface ListedAsset {
  id: string
  type: string
  title: string
  access: 'view' | 'edit'
}

/** A page of `GET /workspaces/{id}/search` (packages/api/src/v0/search.ts). */
interface SearchPageOut {
  results: { doc_id: string; title: string; type: string; block: string | null; snippet: string; rank: number }[]
  next?: number
}

/** A table as `GET /databases/{id}/data` lists it (interface spec 2.2). */
export interface TableListed {
  name: string
  row_count?: number | null
  schema?: string
}

/** A comment thread as `GET /tools/asset/content?include_comments=true` gives it (interface spec 2.5). */
export interface ThreadOut {
  id: string
  archived_at?: string | null
  resolved_at?: string | null
  created_at?: string | null
  comments?: { id: string; text: string; created_at?: string | null; user_id?: string | null }[]
  data?: { anchor?: { text?: string | null } }
  level?: string
}

/** A suggestion record (docs/suggestions.md): the fields the tools read; the rest passes through. */
export interface SuggestionRecordOut {
  id: string
  by: string
  status: string
  [field: string]: unknown
}

export interface SuggestionShown {
  suggestion: SuggestionRecordOut
  format: string
  hunks: { id: string; status: string; before: string; after: string }[]
}

export class TandemApi {
  /** `origin`: the API listener, e.g. http://127.0.0.1:8080 */
  constructor(
    private readonly origin: string,
    private readonly apiKey: string,
    readonly workspace: string,
    private readonly scope: SessionAssets,
  ) {}

  private async request<T>(
    url: string,
    init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers }
    if (init.json !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    })
    const text = await res.text()
    let body: unknown = null
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = text
    }
    if (!res.ok) {
      const o = (body ?? {}) as { detail?: unknown; message?: unknown; error?: unknown }
      const reason =
        typeof o.detail === 'string'
          ? o.detail
          : typeof o.message === 'string'
            ? o.message
            : typeof o.error === 'string'
              ? o.error
              : JSON.stringify(o.detail ?? body)
      throw new Error(`${res.status}: ${reason}`)
    }
    return body as T
  }

  private api<T>(path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
    return this.request<T>(`${this.origin}/api/v0${path}`, { ...init, headers: { 'x-api-key': this.apiKey } })
  }

  /** The workspace's assets the caller may view, with their access (`view` or `edit`). */
  async assets(): Promise<ListedAsset[]> {
    return (await this.api<{ assets: ListedAsset[] }>(`/workspaces/${seg(this.workspace)}/assets`)).assets
  }

  /** Full-text search of the workspace: one page of results, only what the caller may view. */
  async search(q: string, limit: number, offset: number): Promise<SearchPageOut> {
    const query = new URLSearchParams({ q, limit: String(limit), offset: String(offset) })
    return this.api<SearchPageOut>(`/workspaces/${seg(this.workspace)}/search?${query}`)
  }

  private content<T>(
    t: DocToken,
    init: { method?: string; json?: unknown; query?: Record<string, string> },
  ): Promise<T> {
    const q = new URLSearchParams(init.query ?? {}).toString()
    return this.request<T>(`${t.rest_url}/content/v1/${seg(t.org)}/${seg(t.doc_id)}${q ? `?${q}` : ''}`, {
      ...init,
      headers: { authorization: `Bearer ${t.token}` },
    })
  }

  async readContent(assetId: string, format: string, root: string | undefined): Promise<unknown> {
    const t = await this.scope.docToken(assetId, 'r')
    return this.content(t, { query: { format, ...(root ? { root } : {}) } })
  }

  /** A part read (GET /content?view=...): `query` is its parameters as the content route takes them. */
  async readPart(assetId: string, query: Record<string, string>): Promise<unknown> {
    return this.content(await this.scope.docToken(assetId, 'r'), { query })
  }

  /** `suggest`: held as a suggestion for a person instead of applied. */
  async writeContent(assetId: string, w: ContentWrite, suggest = false): Promise<unknown> {
    const t = await this.scope.docToken(assetId, 'rw')
    const { format, content, base, root, attributions } = w
    return this.content(t, {
      method: 'PATCH',
      json: {
        format,
        content,
        attributions,
        ...(base ? { base } : {}),
        ...(root ? { root } : {}),
        ...(suggest ? { mode: 'suggest' } : {}),
      },
    })
  }

  /** Targeted edits (PATCH /content with `edits`); `suggest`: held as a suggestion. */
  async writeEdits(
    assetId: string,
    w: { edits: unknown[]; base?: string; root?: string; attributions: Record<string, string> },
    suggest = false,
  ): Promise<unknown> {
    const t = await this.scope.docToken(assetId, 'rw')
    const { edits, base, root, attributions } = w
    return this.content(t, {
      method: 'PATCH',
      json: {
        edits,
        attributions,
        ...(base ? { base } : {}),
        ...(root ? { root } : {}),
        ...(suggest ? { mode: 'suggest' } : {}),
      },
    })
  }

  /** Shows the people in the document where the agent looks: its caret over a block, heading or quote. */
  async show(assetId: string, at: PresenceShow): Promise<unknown> {
    const t = await this.scope.docToken(assetId, 'r')
    return this.request(`${t.rest_url}/presence/v1/${seg(t.org)}/${seg(t.doc_id)}`, {
      method: 'POST',
      json: at,
      headers: { authorization: `Bearer ${t.token}` },
    })
  }

  /** The session ended: its agent leaves every document it was shown in, at once rather than a TTL later. */
  async leave(): Promise<void> {
    const ids = [...this.scope.touched]
    await Promise.allSettled(
      ids.map(async (id) => {
        const t = await this.scope.docToken(id, 'r')
        await this.request(`${t.rest_url}/presence/v1/${seg(t.org)}/${seg(t.doc_id)}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${t.token}` },
        })
      }),
    )
    this.scope.touched.clear()
  }

  /** The document's suggestions route: `path` after the document ("", "/{id}", "/{id}/reject"). */
  private suggestionsAt<T>(t: DocToken, path: string, init: { method?: string; json?: unknown } = {}): Promise<T> {
    return this.request<T>(`${t.rest_url}/suggestions/v1/${seg(t.org)}/${seg(t.doc_id)}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${t.token}` },
    })
  }

  async suggestions(assetId: string, status: string | undefined): Promise<unknown> {
    const t = await this.scope.docToken(assetId, 'r')
    return this.suggestionsAt(t, status ? `?status=${seg(status)}` : '')
  }

  async readRows(assetId: string, table: string, query: string): Promise<unknown> {
    await this.scope.inWorkspace(assetId)
    const q = query.replace(/^\?/, '')
    return this.api(`/databases/${seg(assetId)}/data/${seg(table)}${q ? `?${q}` : ''}`)
  }

  async insertRows(assetId: string, table: string, rows: Record<string, unknown>[]): Promise<unknown> {
    await this.scope.inWorkspace(assetId)
    return this.api(`/databases/${seg(assetId)}/data/${seg(table)}`, {
      method: 'POST',
      json: { data: rows, return_representation: true },
    })
  }

  async comment(assetId: string, c: { text: string; quote?: string; thread_id?: string }): Promise<unknown> {
    await this.scope.inWorkspace(assetId)
    return this.api(`/assets/${seg(assetId)}/comments`, { method: 'POST', json: c })
  }

  /** One suggestion with its hunks, their before and after in Markdown. */
  async suggestion(assetId: string, id: string): Promise<SuggestionShown> {
    const t = await this.scope.docToken(assetId, 'r')
    return this.suggestionsAt(t, `/${seg(id)}?format=markdown`)
  }

  /**
   * Withdraws the caller's own suggestion: a whole reject by its author is a withdrawal (statuses in
   * docs/suggestions.md). Anyone else's is refused here, before the reject: a reject by another is a
   * review, which is a person's to make, not this tool's.
   */
  async withdrawSuggestion(assetId: string, id: string): Promise<{ suggestion: SuggestionRecordOut }> {
    const t = await this.scope.docToken(assetId, 'rw')
    const { suggestions } = await this.suggestionsAt<{ suggestions: SuggestionRecordOut[] }>(t, '')
    const s = suggestions.find((x) => x.id === id)
    if (!s) throw new Error('404: no such suggestion')
    if (s.by !== this.scope.user)
      throw new Error(`403: only its author may withdraw a suggestion; this one is by ${s.by}: a person reviews it`)
    return this.suggestionsAt(t, `/${seg(id)}/reject`, { method: 'POST' })
  }

  async tables(assetId: string): Promise<TableListed[]> {
    await this.scope.inWorkspace(assetId)
    return (await this.api<{ tables: TableListed[] }>(`/databases/${seg(assetId)}/data`)).tables
  }

  /** The asset's comment threads (null: the comment data could not be read). */
  async commentThreads(assetId: string): Promise<ThreadOut[] | null> {
    await this.scope.inWorkspace(assetId)
    return (
      (
        await this.api<{ comments?: ThreadOut[] | null }>(
          `/tools/asset/content?asset_id=${seg(assetId)}&include_comments=true`,
        )
      ).comments ?? null
    )
  }
}
