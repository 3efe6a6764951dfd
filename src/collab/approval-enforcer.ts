// Brings joined agents in line with their workspace's approval mode the moment it changes. Under
// required_with_override or required_no_override an agent's token (`source: ai`) writes nothing
// over a socket: admission and every token refresh rule it read-only (session/admission.ts), and
// its edits go through /content as suggestions. A socket that joined before the change is
// narrowed to read-only now and told so, as a revocation narrows one. A change back to
// no_approval widens nothing until the token's next refresh, which reads the mode again.
import type { HookedControlStore } from '../control/hooked-store.js'
import type { ToolCatalog } from '../control/tool-catalog.js'
import type { ApprovalMode } from '../control/tool-policy.js'
import { approvalOf, REGISTRY_PREFIX } from '../control/tool-registry.js'
import type { Logger } from '../infra/log.js'
import type { Peer } from './peer.js'
import type { RoomRegistry } from './registry.js'

/** The approval mode of agents' edits in a workspace (`org`). */
type Approval = (org: string) => Promise<ApprovalMode>

/** Whether a joined peer is an agent that may still write (the only ones a mode change narrows). */
const writingAgent = (peer: Peer): boolean => !peer.closed && peer.canWrite && peer.cap.attr?.source === 'ai'

/** Narrows an agent's socket to read-only, telling it so (anyone else is left as they are). */
export function narrowAgent(peer: Peer): void {
  if (writingAgent(peer)) peer.narrowToReadOnly()
}

/**
 * Every writing agent joined to a room of a workspace whose mode now requires approval is narrowed
 * to read-only; the mode is read once per workspace. Returns how many were narrowed.
 */
async function narrowAgents(registry: RoomRegistry, approval: Approval): Promise<number> {
  const byOrg = new Map<string, Peer[]>()
  for (const room of registry.all()) {
    for (const peer of room.peers) {
      if (!writingAgent(peer)) continue
      const list = byOrg.get(peer.cap.org)
      if (list) list.push(peer)
      else byOrg.set(peer.cap.org, [peer])
    }
  }
  let narrowed = 0
  for (const [org, peers] of byOrg) {
    if ((await approval(org)) === 'no_approval') continue
    for (const peer of peers) {
      if (!writingAgent(peer)) continue
      peer.narrowToReadOnly()
      narrowed++
    }
  }
  return narrowed
}

export interface AgentApprovalOptions {
  store: HookedControlStore
  catalog: ToolCatalog
  registry: RoomRegistry
  log: Logger
  /** the cluster's control notices, when there is a cluster */
  notices?: { relay(store: HookedControlStore, refreshers: Record<string, () => Promise<unknown>>): void } | undefined
}

/**
 * The approval mode of agents' edits in a workspace: the registry's override for `edit_document`.
 * A registry write narrows agents' sockets at once: in this process before the write returns (the
 * batch awaits its hooks), on other nodes when they hear of it (if a notice is lost, their tokens'
 * next refresh rules them). A failure is logged; the refresh rules then too.
 */
export function agentApproval(o: AgentApprovalOptions): Approval {
  const approval: Approval = (org) => approvalOf(o.store, o.catalog, org, 'edit_document')
  const narrow = () =>
    narrowAgents(o.registry, approval).then(
      (n) => {
        if (n > 0) o.log.info({ narrowed: n }, "agents' sockets narrowed to read-only: their workspace now requires approval")
      },
      (err: unknown) => o.log.error({ err }, "agents' sockets not narrowed after an approval-mode change; their next token refresh rules them"),
    )
  o.store.addHook({ after: async (ops) => (ops.some((op) => op.key.startsWith(`${REGISTRY_PREFIX}/`)) ? narrow() : undefined) })
  o.notices?.relay(o.store, { [`${REGISTRY_PREFIX}/`]: narrow })
  return approval
}
