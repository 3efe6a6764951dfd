// The agents' policy as the server composes it: the workspace's approval mode (the tool registry's
// override for `edit_document`) read for an agent's capability, content writes held by it, and
// joined agents brought in line the moment it changes. Under required_with_override or
// required_no_override an agent writes nothing over a socket: admission and every token refresh
// rule it read-only, and its edits go through /content as suggestions. A socket that joined
// before the change is narrowed to read-only now and told so, as a revocation narrows one. A
// change back to no_approval widens nothing until the token's next refresh, which reads the mode
// again. Collab and content receive this object; the rule itself is policy.ts.
import type { Capability } from '../auth/capability.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import type { ToolCatalog } from '../control/tool-catalog.js'
import { approvalOf, REGISTRY_PREFIX } from '../control/tool-registry.js'
import type { Logger } from '../infra/log.js'
import { holds, isAgent, mayBeRuled, ruledBy, type ApprovalMode, type WriteAsk } from './policy.js'

/** A joined socket as the policy sees it (collab's Peer). */
interface AgentSocket {
  readonly cap: Capability
  readonly closed: boolean
  readonly canWrite: boolean
  /** narrows to read-only and tells the socket so */
  narrowToReadOnly(): void
}

/** The joined sockets of a process (collab's RoomRegistry). */
interface JoinedSockets {
  all(): Iterable<{ readonly peers: Iterable<AgentSocket> }>
}

export interface AgentPolicy {
  /** The approval mode of agents' edits in a workspace (`org`). */
  mode(org: string): Promise<ApprovalMode>
  /** A capability as the mode leaves it: an agent's read-write one reads only under approval. */
  ruled(cap: Capability, org: string): Promise<Capability>
  /** Whether a content write is held as a suggestion (throws for an override the mode refuses). */
  holds(cap: Capability, org: string, ask: WriteAsk): Promise<boolean>
  /** A writing agent just joined: the mode is read once more (a change between admission and join). */
  ruleAgainAfterJoin(socket: AgentSocket, org: string): void
}

/** Whether a joined socket is an agent that may still write (the only ones a mode change narrows). */
const writingAgent = (s: AgentSocket): boolean => !s.closed && s.canWrite && isAgent(s.cap)

/**
 * Every writing agent joined to a room of a workspace whose mode now requires approval is narrowed
 * to read-only; the mode is read once per workspace. Returns how many were narrowed.
 */
async function narrowAgents(joined: JoinedSockets, mode: (org: string) => Promise<ApprovalMode>): Promise<number> {
  const byOrg = new Map<string, AgentSocket[]>()
  for (const room of joined.all()) {
    for (const s of room.peers) {
      if (!writingAgent(s)) continue
      const list = byOrg.get(s.cap.org)
      if (list) list.push(s)
      else byOrg.set(s.cap.org, [s])
    }
  }
  let narrowed = 0
  for (const [org, sockets] of byOrg) {
    if ((await mode(org)) === 'no_approval') continue
    for (const s of sockets) {
      if (!writingAgent(s)) continue
      s.narrowToReadOnly()
      narrowed++
    }
  }
  return narrowed
}

export interface AgentPolicyOptions {
  store: HookedControlStore
  catalog: ToolCatalog
  joined: JoinedSockets
  log: Logger
  /** the cluster's control notices, when there is a cluster */
  notices?: { relay(store: HookedControlStore, refreshers: Record<string, () => Promise<unknown>>): void } | undefined
}

/**
 * The policy over the control plane's registry. A registry write narrows agents' sockets at once:
 * in this process before the write returns (the batch awaits its hooks), on other nodes when they
 * hear of it (if a notice is lost, their tokens' next refresh rules them). A failure is logged;
 * the refresh rules then too.
 */
export function agentPolicy(o: AgentPolicyOptions): AgentPolicy {
  const mode = (org: string) => approvalOf(o.store, o.catalog, org, 'edit_document')
  const narrow = () =>
    narrowAgents(o.joined, mode).then(
      (n) => {
        if (n > 0)
          o.log.info({ narrowed: n }, "agents' sockets narrowed to read-only: their workspace now requires approval")
      },
      (err: unknown) =>
        o.log.error(
          { err },
          "agents' sockets not narrowed after an approval-mode change; their next token refresh rules them",
        ),
    )
  o.store.addHook({
    after: async (ops) => (ops.some((op) => op.key.startsWith(`${REGISTRY_PREFIX}/`)) ? narrow() : undefined),
  })
  o.notices?.relay(o.store, { [`${REGISTRY_PREFIX}/`]: narrow })
  const ruled = async (cap: Capability, org: string) => (mayBeRuled(cap) ? ruledBy(await mode(org), cap) : cap)
  return {
    mode,
    ruled,
    async holds(cap, org, ask) {
      // a person's write reads no mode: only the suggest and override checks apply to it
      const agent = isAgent(cap)
      return holds(agent && !ask.suggest ? await mode(org) : null, agent, ask)
    },
    ruleAgainAfterJoin(socket, org) {
      if (!mayBeRuled(socket.cap)) return
      ruled(socket.cap, org).then(
        (now) => (now.acc === 'rw' || !writingAgent(socket) ? undefined : socket.narrowToReadOnly()),
        (err: unknown) =>
          o.log.warn({ err }, "approval mode not re-read after an agent's join; its next token refresh rules it"),
      )
    },
  }
}
