// Who is an agent, and what the workspace's approval mode does to an agent's writes. Pure: the
// rest of the agents' policy (reading the mode, narrowing live sockets) is approval.ts, and collab
// and content receive the whole of it from there.
//
// An agent is an identity the caller cannot shed, decided when its token is minted: an API key or
// user marked as an agent, every MCP session (claim `agent`), or a token whose own attributions
// declare `source: ai` (a self-declaration only ever narrows). What a write's body says never
// decides it: the body's attributions are labels for history, not an identity.
import type { Capability } from '../auth/capability.js'
import { AppError } from '../infra/errors.js'
import type { ApprovalMode } from '@tandem/api/tool-policy'

export type { ApprovalMode }

/** The one rule: whether a capability is an agent's. */
export const isAgent = (cap: Pick<Capability, 'agent' | 'attr'>): boolean =>
  cap.agent === true || cap.attr?.source === 'ai'

/** Whether a capability may be narrowed by the approval mode (an await) before it is used. */
export const mayBeRuled = (cap: Capability): boolean => cap.acc === 'rw' && isAgent(cap)

/** An agent's read-write capability reads only where its workspace requires approval. */
export const ruledBy = (mode: ApprovalMode, cap: Capability): Capability =>
  mode !== 'no_approval' && mayBeRuled(cap) ? { ...cap, acc: 'r' } : cap

/** What a content write asks for besides its content. */
export interface WriteAsk {
  /** `"mode": "suggest"`: anyone may ask for a suggestion */
  suggest: boolean
  /** `"override": true`: an agent's write applied under required_with_override */
  override: boolean
}

/**
 * Whether a content write is held as a suggestion: asked for, or an agent's under a mode that
 * requires approval (unless it overrides where the mode allows it). Throws for an override the
 * mode refuses, or one from a person (there is nothing to override).
 */
export function holds(mode: ApprovalMode | null, agent: boolean, ask: WriteAsk): boolean {
  if (ask.suggest) return true
  if (!agent || mode === null) {
    if (ask.override) throw new AppError('bad_request', "override only applies to agents' edits under an approval mode")
    return false
  }
  if (mode === 'no_approval') return false
  if (mode === 'required_no_override') {
    if (ask.override)
      throw new AppError(
        'forbidden',
        "the workspace's approval mode for edit_document is required_no_override: an agent's edit is always a suggestion",
      )
    return true
  }
  return !ask.override
}
