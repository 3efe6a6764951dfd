// Collab tokens for the document tools (read_document, edit_document, suggest_edit,
// list_suggestions), minted in this process for one tool call. Every one says `agent`: an MCP
// session is an agent whatever key opened it, so the workspace's approval mode rules its edits
// (src/agents/). The REST minting endpoint is not involved, and its rule is not widened.
import { mintToken, type Access } from '../auth/capability.js'
import type { KeyRing } from '../auth/keys/ring.js'
import { getAsset, permissionOf } from '../control/assets.js'
import type { ControlStore } from '../control/store.js'
import { roleOf } from '../control/workspaces.js'

/** What the tools call the collab REST with. */
export interface DocToken {
  token: string
  access_type: Access
  org: string
  doc_id: string
  rest_url: string
}

export interface DocTokenDeps {
  store: ControlStore
  keys: KeyRing
  now: () => number
  /** the collab listener's REST base, as the server publishes it */
  restUrl: () => string
  ttlSec: number
}

/** A refusal the tool tells the agent: the status and reason, as an endpoint's would read. */
const refusal = (status: number, reason: string) => new Error(`${status}: ${reason}`)

/** Mints a token for one asset for the session's `user`; `access` is a ceiling, as on REST. */
export async function mintDocToken(d: DocTokenDeps, user: string, assetId: string, access: 'view' | 'edit'): Promise<DocToken> {
  const asset = await getAsset(d.store, assetId)
  if (!asset || asset.type !== 'generic_doc') throw refusal(404, 'Asset not found')
  const role = await roleOf(d.store, asset.workspaceId, user)
  if (role !== 'owner' && role !== 'admin') throw refusal(403, 'Workspace owner or admin permission required')
  const permission = await permissionOf(d.store, user, asset)
  if (!permission) throw refusal(403, 'No permission on this asset')
  const acc: Access = access === 'edit' && permission === 'edit' ? 'rw' : 'r'
  const { token } = await mintToken(d.keys, { sub: user, org: asset.workspaceId, doc: asset.id, acc, asset: asset.id, agent: true, ttlSec: d.ttlSec }, d.now())
  return { token, access_type: acc, org: asset.workspaceId, doc_id: asset.id, rest_url: d.restUrl() }
}
