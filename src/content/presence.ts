// The agent a content call comes from, as the room shows it (collab/room/agent-presence.ts): one
// presence per agent identity and session (the token's `ses` claim: an MCP session), named as the
// session says, or by the identity itself.
import type { Capability } from '../auth/capability.js'
import { isAgent } from '../agents/policy.js'
import type { AgentWho } from '../collab/room/agent-presence.js'
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import type { AgentCaret } from './caret.js'

export function agentWho(cap: Capability): AgentWho {
  const model = cap.session?.model ?? cap.attr?.model
  return {
    key: cap.session ? `${cap.sub}\n${cap.session.id}` : cap.sub,
    name: cap.session?.name ?? cap.sub,
    ...(model ? { model } : {}),
  }
}

export const refOf = (req: RestRequest) => ({ org: req.org, doc: req.doc, branch: req.cap.branch })

/** Shows the caller in the room when it is an agent (a person is seen through their editor). */
export async function showAgent(req: RestRequest, ctx: RestContext, cursor?: AgentCaret | null): Promise<void> {
  if (!isAgent(req.cap)) return
  await ctx.registry.agents.show(refOf(req), req.cap.sub, agentWho(req.cap), cursor)
}
