// Brings joined agents in line with their workspace's approval mode the moment it changes. Under
// required_with_override or required_no_override an agent's token (`source: ai`) writes nothing
// over a socket: admission and every token refresh rule it read-only (session/admission.ts), and
// its edits go through /content as suggestions. A socket that joined before the change is
// narrowed to read-only now and told so, as a revocation narrows one. A change back to
// no_approval widens nothing until the token's next refresh, which reads the mode again.
import type { Logger } from '../infra/log.js'
import type { Peer } from './peer.js'
import type { RoomRegistry } from './registry.js'
import type { SessionDeps } from './session/admission.js'

type Approval = NonNullable<SessionDeps['approval']>

/** Whether a joined peer is an agent that may still write (the only ones a mode change narrows). */
const writingAgent = (peer: Peer): boolean => !peer.closed && peer.canWrite && peer.cap.attr?.source === 'ai'

/** Narrows `peer` to read-only, telling it so. */
export function narrowToReadOnly(peer: Peer): void {
  if (!writingAgent(peer)) return
  peer.cap = { ...peer.cap, acc: 'r' }
  peer.narrowed()
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
      narrowToReadOnly(peer)
      narrowed++
    }
  }
  return narrowed
}

/** narrowAgents for a control-store hook or a cluster notice: a failure is logged, the next refresh rules. */
export function narrowAgentsLogged(registry: RoomRegistry, approval: Approval, log: Logger): () => Promise<void> {
  return () =>
    narrowAgents(registry, approval).then(
      (n) => {
        if (n > 0) log.info({ narrowed: n }, "agents' sockets narrowed to read-only: their workspace now requires approval")
      },
      (err: unknown) => log.error({ err }, "agents' sockets not narrowed after an approval-mode change; their next token refresh rules them"),
    )
}
