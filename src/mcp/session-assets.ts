// What an MCP session may reach: the assets of the workspace it was opened for, and nothing else.
// An asset elsewhere (even one the caller may use there) answers exactly as a missing one, so ids
// in other workspaces cannot be probed. The document tools' collab tokens are minted here, in this
// process, for one tool call, with the caller's own permission on the asset (view reads, edit
// writes): a member uses the document tools as far as their grant goes, while the REST minting
// endpoint stays for owners and admins (its rule is not widened: those tokens never leave here).
// Every one says `agent`: an MCP session is an agent whatever key opened it, so the workspace's
// approval mode rules its edits (src/agents/).
import { mintToken, type Access, type AgentSession } from '../auth/capability.js'
import type { KeyRing } from '../auth/keys/ring.js'
import { getAsset, permissionOf, type Asset } from '../control/assets.js'
import type { ControlStore } from '../control/store.js'

/** What the tools call the collab REST with. */
export interface DocToken {
  token: string
  access_type: Access
  org: string
  doc_id: string
  rest_url: string
}

export interface SessionAssetDeps {
  store: ControlStore
  keys: KeyRing
  now: () => number
  /** the collab listener's REST base, as the server publishes it */
  restUrl: () => string
  ttlSec: number
}

/** A refusal the tool tells the agent: the status and reason, as an endpoint's would read. */
const refusal = (status: number, reason: string) => new Error(`${status}: ${reason}`)
/** One answer for missing, deleted, elsewhere and (for document tools) not a document or not viewable. */
const NOT_FOUND = () => refusal(404, 'Asset not found')

export class SessionAssets {
  /** the MCP session the tokens are minted for: people see one agent per session in a document */
  private session: (() => AgentSession) | null = null
  /** the documents a token was minted for: the session leaves their rooms when it ends */
  readonly touched = new Set<string>()

  constructor(
    private readonly d: SessionAssetDeps,
    /** the caller: the `sub` of every token minted here, a suggestion's `by` when it made one */
    readonly user: string,
    private readonly workspace: string,
  ) {}

  /** Names the session every token from now on is minted for. */
  forSession(session: () => AgentSession): void {
    this.session = session
  }

  /** The asset when it is in the session's workspace; otherwise the same 404 as a missing one. */
  async inWorkspace(assetId: string): Promise<Asset> {
    const asset = await getAsset(this.d.store, assetId)
    if (!asset || asset.workspaceId !== this.workspace) throw NOT_FOUND()
    return asset
  }

  /** A token for one of the session's documents: `r` to read (view), `rw` to write (edit). */
  async docToken(assetId: string, acc: Access): Promise<DocToken> {
    const asset = await this.inWorkspace(assetId)
    if (asset.type !== 'generic_doc') throw NOT_FOUND()
    // a document the caller may not view is as missing as one elsewhere (as the REST comments answer)
    const permission = await permissionOf(this.d.store, this.user, asset)
    if (!permission) throw NOT_FOUND()
    if (acc === 'rw' && permission !== 'edit')
      throw refusal(403, 'you may only view this document: editing needs edit permission on it')
    const claims = {
      sub: this.user,
      org: asset.workspaceId,
      doc: asset.id,
      acc,
      asset: asset.id,
      agent: true,
      ...(this.session ? { session: this.session() } : {}),
      ttlSec: this.d.ttlSec,
    }
    const { token } = await mintToken(this.d.keys, claims, this.d.now())
    this.touched.add(asset.id)
    return { token, access_type: acc, org: asset.workspaceId, doc_id: asset.id, rest_url: this.d.restUrl() }
  }
}
