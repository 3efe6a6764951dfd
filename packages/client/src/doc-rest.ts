// The collab REST routes of one document (`{rest_url}/{name}/v1/{org}/{doc_id}`): named versions,
// history and rollback, content read and written whole or by part (outline, section, find, targeted
// edits), suggestions. Every call carries the current capability token, which the caller supplies
// (a live document's, or one minted for the call).
import type { paths } from './collab-rest-types.js'
import { exchange, seg, type Fetch } from './http.js'
import {
  partQuery,
  type FindOptions,
  type OutlineOptions,
  type RangeOptions,
  type SectionOptions,
} from './part-query.js'
import type {
  CollabToken,
  ContentEdit,
  ContentEdits,
  ContentRead,
  ContentWrite,
  ContentWritten,
  FindRead,
  OutlineRead,
  PartRead,
  PresenceShow,
  PresenceShown,
  SectionRead,
  StreamState,
  StreamWhere,
  Suggestion,
  SuggestionShown,
  SuggestionStatus,
  VersionRecord,
} from './types.js'

export interface RestCall {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  query?: Record<string, string | number | boolean>
  json?: unknown
  /** a path segment after the document (a version id) */
  id?: string
  /** a segment after the id (`accept`) */
  action?: string
}

/** The versions routes as the server declares them (collab-rest-types.ts, generated from its OpenAPI document). */
type Versions = paths['/versions/v1/{org}/{doc_id}']
type Version = paths['/versions/v1/{org}/{doc_id}/{id}']
type VersionList = Extract<Versions['get']['responses'][200]['content']['application/json'], { versions: unknown }>
type VersionRead = Extract<Version['get']['responses'][200]['content']['application/json'], { version: unknown }>
type VersionCreate = Versions['post']['requestBody']['content']['application/json']
type VersionCreated = Versions['post']['responses'][201]['content']['application/json']
type VersionRename = Version['patch']['requestBody']['content']['application/json']
type VersionRenamed = Version['patch']['responses'][200]['content']['application/json']

const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0))

/** What `DocumentRest.agent()` does in the document. */
export interface DocumentAgent {
  /** its caret over a block (id), a heading (text) or a quote, without editing */
  show(at: PresenceShow): Promise<PresenceShown>
  /** leave the document's room now (otherwise it goes a TTL after its last call) */
  done(): Promise<void>
  stream(
    where: StreamWhere,
    chunks: AsyncIterable<string> | Iterable<string>,
    options?: StreamOptions,
  ): Promise<StreamState>
}

export interface StreamOptions {
  /** cancelled, remove what the stream wrote (in one update) instead of keeping it */
  atomic?: boolean
  root?: string
  signal?: AbortSignal
}

export class DocumentRest {
  constructor(
    private readonly token: (access: 'view' | 'edit') => Promise<CollabToken>,
    private readonly fetchFn: Fetch,
  ) {}

  /** The URL of a route with the token (for an `<a href>` or an EventSource). */
  url(t: CollabToken, name: string, query: RestCall['query'] = {}, id?: string, action?: string): string {
    const q = new URLSearchParams({
      ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
      yauth: t.token,
    })
    const tail = `${id === undefined ? '' : `/${seg(id)}`}${action === undefined ? '' : `/${seg(action)}`}`
    return `${t.rest_url}/${name}/v1/${seg(t.org)}/${seg(t.doc_id)}${tail}?${q}`
  }

  /**
   * Any collab REST route (`activity`, `changeset`, `rollback`, ...); reads with a view token, writes with an edit one.
   */
  async call<T>(name: string, c: RestCall = {}): Promise<T> {
    const method = c.method ?? 'GET'
    const t = await this.token(method === 'GET' ? 'view' : 'edit')
    return exchange<T>(this.fetchFn, this.url(t, name, c.query, c.id, c.action), { method, json: c.json })
  }

  async versions(): Promise<VersionRecord[]> {
    return (await this.call<VersionList>('versions')).versions
  }

  createVersion(name: string): Promise<VersionRecord> {
    const json: VersionCreate = { name }
    return this.call<VersionCreated>('versions', { method: 'POST', json })
  }

  /** A version's record and the document exactly as it was (a Yjs update). */
  async version(id: string): Promise<{ version: VersionRecord; doc: Uint8Array }> {
    const r = await this.call<VersionRead>('versions', { id })
    return { version: r.version, doc: fromBase64(r.doc) }
  }

  /**
   * Renames; `updatedAtMs` is the record's as last read (a stale one is a 409 whose `body.version` is the current
   * record).
   */
  renameVersion(id: string, name: string, updatedAtMs: number): Promise<VersionRecord> {
    const json: VersionRename = { name, updated_at_ms: updatedAtMs }
    return this.call<VersionRenamed>('versions', { method: 'PATCH', id, json })
  }

  async deleteVersion(id: string): Promise<void> {
    await this.call('versions', { method: 'DELETE', id })
  }

  /** The document as Markdown (default), ProseMirror JSON or text, with the base to write from. */
  content(format: ContentRead['format'] = 'markdown', root?: string): Promise<ContentRead> {
    return this.call('content', { query: { format, ...(root ? { root } : {}) } })
  }

  /**
   * Writes content as the smallest change from `base`, merged with what others wrote since (or held as a suggestion).
   */
  writeContent(write: ContentWrite): Promise<ContentWritten> {
    return this.call('content', { method: 'PATCH', json: write })
  }

  /**
   * The headings and blocks (ids, kinds, lines, sizes) of the document or of a part; at most 20 KB for any document.
   */
  outline(options: OutlineOptions = {}): Promise<OutlineRead> {
    return this.call('content', { query: partQuery('outline', options) })
  }

  /**
   * A heading's section (`{ heading }`: its text or block id) or blocks (`{ blocks }`), as Markdown lines of the whole
   * view.
   */
  section(options: SectionOptions): Promise<SectionRead> {
    return this.call('content', { query: partQuery('section', options) })
  }

  /** Lines of the Markdown view (`{ lines: '40-80' }`) or a run of blocks (`{ blocks: 'FIRST..LAST' }`). */
  range(options: RangeOptions): Promise<SectionRead> {
    return this.call('content', { query: partQuery('range', options) })
  }

  /** The lines that hold `query` (text within one line, or an RE2 pattern with `regex`), with block id and context. */
  find(query: string, options: FindOptions = {}): Promise<FindRead> {
    return this.call('content', { query: partQuery('find', { ...options, query }) })
  }

  /** The rest of a truncated part read: its `next`, at the same base; answers the view the cursor came from. */
  more<T extends PartRead = PartRead>(cursor: string): Promise<T> {
    return this.call('content', { query: { cursor } })
  }

  /**
   * Targeted edits of the Markdown view, located at `base` (the one a read answered) and merged with
   * what others wrote since; all apply or none. Answers the new base and each changed region
   * (`changes`), or a suggestion (`mode: 'suggest'`, or the approval mode). A 409 is a TandemError
   * whose body `editRefusal(error)` gives (no_match with the closest line, several_matches, changed_since_base).
   */
  edit(edits: ContentEdit[], options: Omit<ContentEdits, 'edits'> = {}): Promise<ContentWritten> {
    return this.call('content', { method: 'PATCH', json: { edits, ...options } })
  }

  /**
   * The agent's side of the document (its token must be an agent's: an agent key, or a user marked
   * as one): show the people where it looks, stream what it writes, and leave.
   */
  agent(): DocumentAgent {
    return {
      show: (at) => this.call('presence', { method: 'POST', json: at }),
      done: async () => {
        await this.call('presence', { method: 'DELETE' })
      },
      stream: (where, chunks, options = {}) => this.stream(where, chunks, options),
    }
  }

  /**
   * Streams Markdown into the document as it arrives: each chunk reaches the editors as real blocks
   * once what it holds is settled, the agent's caret at its end; the end shows all of it. Aborted
   * (`signal`) or failing, the stream is cancelled: what it showed stays, or with `atomic` goes.
   */
  private async stream(
    where: StreamWhere,
    chunks: AsyncIterable<string> | Iterable<string>,
    options: StreamOptions,
  ): Promise<StreamState> {
    const { atomic, root, signal } = options
    const opened = await this.call<StreamState>('stream', {
      method: 'POST',
      json: { ...where, ...(atomic ? { atomic } : {}), ...(root ? { root } : {}) },
    })
    const id = opened.stream
    try {
      for await (const text of chunks) {
        signal?.throwIfAborted()
        if (text) await this.call<StreamState>('stream', { method: 'POST', id, json: { text } })
      }
      signal?.throwIfAborted()
      return await this.call<StreamState>('stream', { method: 'POST', id, action: 'end', json: {} })
    } catch (err) {
      await this.call('stream', { method: 'DELETE', id }).catch(() => {})
      throw err
    }
  }

  async suggestions(status?: SuggestionStatus): Promise<Suggestion[]> {
    return (await this.call<{ suggestions: Suggestion[] }>('suggestions', { query: status ? { status } : {} }))
      .suggestions
  }

  /** A suggestion with its hunks (before/after in `format`) and the document as it would read if accepted now. */
  suggestion(id: string, format: SuggestionShown['format'] = 'markdown'): Promise<SuggestionShown> {
    return this.call('suggestions', { id, query: { format } })
  }

  /** Holds a change for review: content against a base (as writeContent), or `{update}` (base64 Yjs update). */
  suggest(
    change:
      | Omit<ContentWrite, 'mode' | 'override'>
      | { update: string; base?: string; attributions?: Record<string, string> },
  ): Promise<{ suggestion: Suggestion; hunks: string[] }> {
    return this.call('suggestions', { method: 'POST', json: change })
  }

  /** Accepts the whole suggestion, or the hunks named. */
  acceptSuggestion(id: string, hunks?: string[]): Promise<{ suggestion: Suggestion; applied: boolean }> {
    return this.call('suggestions', { method: 'POST', id, action: 'accept', ...(hunks ? { json: { hunks } } : {}) })
  }

  /** Rejects the whole suggestion (its author: withdraws it), or the hunks named. */
  rejectSuggestion(id: string, hunks?: string[]): Promise<{ suggestion: Suggestion; applied: boolean }> {
    return this.call('suggestions', { method: 'POST', id, action: 'reject', ...(hunks ? { json: { hunks } } : {}) })
  }
}
