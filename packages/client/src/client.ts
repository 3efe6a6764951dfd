// TandemClient: one typed method per /api/v0 endpoint, bound to an API key. Answers are returned
// as the server sends them; anything but 2xx throws a TandemError with the body's own detail.
import { DocumentRest } from './doc-rest.js'
import { openDocument, type DocumentOptions, type LiveDocument } from './document.js'
import { exchange, seg, type Call, type Fetch } from './http.js'
import { rowsSearchParams, type RowsQuery } from './rows-query.js'
import type {
  AssetContent,
  AssetDeleted,
  AssetRestored,
  CollabToken,
  CollabTokenOptions,
  CreatedWebhook,
  DeletedAssets,
  DeliveryList,
  InsertOptions,
  InsertResult,
  Me,
  SearchOptions,
  SearchResults,
  Sources,
  TableList,
  TableRow,
  ToolRegistry,
  ToolRegistryPatch,
  VersionRecord,
  WebhookCreate,
  WebhookList,
  WorkspaceAssets,
} from './types.js'

export interface ClientOptions {
  /** the api listener, e.g. `https://tandem.example.com` (with or without a trailing `/`) */
  baseUrl: string
  apiKey: string
  /** defaults to the global fetch */
  fetch?: Fetch
}

/** A token minted for REST calls is reused until this long before it expires. */
const TOKEN_REUSE_MARGIN_MS = 30_000

export class TandemClient {
  private readonly base: string
  private readonly fetchFn: Fetch
  private readonly restTokens = new Map<string, Promise<CollabToken>>()

  constructor(private readonly options: ClientOptions) {
    this.base = `${options.baseUrl.replace(/\/+$/, '')}/api/v0`
    // Called unbound: a browser's fetch refuses a `this` other than window.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  }

  private call<T>(path: string, call: Call = {}): Promise<T> {
    return exchange<T>(this.fetchFn, `${this.base}${path}`, {
      ...call,
      headers: { 'x-api-key': this.options.apiKey, ...call.headers },
    })
  }

  /** The caller and the workspaces they are a member of. */
  me(): Promise<Me> {
    return this.call('/me')
  }

  /** Assets of a workspace the caller may view. */
  workspaceAssets(workspaceId: string): Promise<WorkspaceAssets> {
    return this.call(`/workspaces/${seg(workspaceId)}/assets`)
  }

  /** Soft-deleted assets of a workspace (owners and admins). */
  deletedAssets(workspaceId: string): Promise<DeletedAssets> {
    return this.call(`/workspaces/${seg(workspaceId)}/assets?deleted=true`)
  }

  /**
   * Full-text search of a workspace's documents (text by block, titles) and database table names,
   * only what the caller may view: words, "phrases", -word, pric* prefixes. Each result names its
   * block: `client.document(r.doc_id).section({ blocks: [r.block] })` reads the place. `next` pages on.
   */
  search(workspaceId: string, q: string, options: SearchOptions = {}): Promise<SearchResults> {
    const query = new URLSearchParams({ q })
    if (options.limit !== undefined) query.set('limit', String(options.limit))
    if (options.offset !== undefined) query.set('offset', String(options.offset))
    return this.call(`/workspaces/${seg(workspaceId)}/search?${query}`)
  }

  /** A capability token for a generic_doc asset; `access` is a ceiling (default `view`). */
  collabToken(assetId: string, options: CollabTokenOptions = {}): Promise<CollabToken> {
    return this.call(`/assets/${seg(assetId)}/collab-token`, { method: 'POST', json: options })
  }

  assetContent(assetId: string, options: { comments?: boolean } = {}): Promise<AssetContent> {
    const q = new URLSearchParams({ asset_id: assetId, include_comments: String(options.comments ?? false) })
    return this.call(`/tools/asset/content?${q}`)
  }

  deleteAsset(assetId: string, options: { hard?: boolean } = {}): Promise<AssetDeleted> {
    return this.call(`/assets/${seg(assetId)}${options.hard ? '?hard=true' : ''}`, { method: 'DELETE' })
  }

  restoreAsset(assetId: string): Promise<AssetRestored> {
    return this.call(`/assets/${seg(assetId)}/restore`, { method: 'POST' })
  }

  tables(assetId: string): Promise<TableList> {
    return this.call(`/databases/${seg(assetId)}/data`)
  }

  /** Rows of a table: `rows(id, 'people', { where: { age: { gte: 30 } }, order: [{ column: 'name' }], limit: 10 })`. */
  async rows(assetId: string, table: string, query: RowsQuery = {}): Promise<TableRow[]> {
    const q = rowsSearchParams(query).toString()
    return (await this.call<{ data: TableRow[] }>(`/databases/${seg(assetId)}/data/${seg(table)}${q ? `?${q}` : ''}`))
      .data
  }

  /** Inserts one row or several; the inserted rows come back with `{ return_representation: true }`. */
  insertRows(
    assetId: string,
    table: string,
    rows: TableRow | TableRow[],
    options: InsertOptions = {},
  ): Promise<InsertResult> {
    return this.call(`/databases/${seg(assetId)}/data/${seg(table)}`, {
      method: 'POST',
      json: { data: rows, ...options },
    })
  }

  toolRegistry(workspaceId: string): Promise<ToolRegistry> {
    return this.call(`/workspaces/${seg(workspaceId)}/tool-registry`)
  }

  updateToolRegistry(workspaceId: string, patch: ToolRegistryPatch): Promise<ToolRegistry> {
    return this.call(`/workspaces/${seg(workspaceId)}/tool-registry`, { method: 'PATCH', json: patch })
  }

  /** The caller's connected sources and site provisioning. */
  sources(): Promise<Sources> {
    return this.call('/me/sources')
  }

  createWebhook(workspaceId: string, webhook: WebhookCreate): Promise<CreatedWebhook> {
    return this.call(`/workspaces/${seg(workspaceId)}/webhooks`, { method: 'POST', json: webhook })
  }

  webhooks(workspaceId: string): Promise<WebhookList> {
    return this.call(`/workspaces/${seg(workspaceId)}/webhooks`)
  }

  async deleteWebhook(workspaceId: string, webhookId: string): Promise<void> {
    await this.call(`/workspaces/${seg(workspaceId)}/webhooks/${seg(webhookId)}`, { method: 'DELETE' })
  }

  webhookDeliveries(workspaceId: string, webhookId: string): Promise<DeliveryList> {
    return this.call(`/workspaces/${seg(workspaceId)}/webhooks/${seg(webhookId)}/deliveries`)
  }

  /** The collab REST routes of a document (versions, history), with tokens minted as needed. */
  document(assetId: string): DocumentRest {
    return new DocumentRest((access) => this.restToken(assetId, access), this.fetchFn)
  }

  versions(assetId: string): Promise<VersionRecord[]> {
    return this.document(assetId).versions()
  }

  createVersion(assetId: string, name: string): Promise<VersionRecord> {
    return this.document(assetId).createVersion(name)
  }

  version(assetId: string, versionId: string): Promise<{ version: VersionRecord; doc: Uint8Array }> {
    return this.document(assetId).version(versionId)
  }

  renameVersion(assetId: string, versionId: string, name: string, updatedAtMs: number): Promise<VersionRecord> {
    return this.document(assetId).renameVersion(versionId, name, updatedAtMs)
  }

  deleteVersion(assetId: string, versionId: string): Promise<void> {
    return this.document(assetId).deleteVersion(versionId)
  }

  /** Opens a document live (stock y-websocket provider) with its token renewed in band. */
  openDocument(assetId: string, options: DocumentOptions = {}): Promise<LiveDocument> {
    return openDocument(
      (access) =>
        this.collabToken(assetId, { access, ...(options.attributions ? { attributions: options.attributions } : {}) }),
      this.fetchFn,
      options,
    )
  }

  /** A token for REST calls, shared by calls of one asset and access until it nears expiry. */
  private restToken(assetId: string, access: 'view' | 'edit'): Promise<CollabToken> {
    const key = `${access}\n${assetId}`
    const cached = this.restTokens.get(key)
    const fresh = async (): Promise<CollabToken> => {
      const minting = this.collabToken(assetId, { access })
      this.restTokens.set(key, minting)
      minting.catch(() => this.restTokens.delete(key))
      return minting
    }
    if (!cached) return fresh()
    return cached.then((t) => (t.expires_at_ms - Date.now() > TOKEN_REUSE_MARGIN_MS ? t : fresh()))
  }
}
