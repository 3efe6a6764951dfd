// What a document's admission needs and checks, for both protocols: a token verified and admitted
// to exactly its document (auth/document-admission.ts: document, deleted, deny-list), then the held room
// checked once more before the join (deleted meanwhile, shutting down, full). An agent's capability
// is narrowed by the agents' policy (src/agents/) where its workspace requires approval.
import { admitToDocument } from '../../auth/document-admission.js'
import { verifyToken, type Capability } from '../../auth/capability.js'
import type { AgentPolicy } from '../../agents/approval.js'
import { mayBeRuled as agentMayBeRuled } from '../../agents/policy.js'
import type { DeletedDocs } from '../../auth/deleted-docs.js'
import type { KeyRing } from '../../auth/keys/ring.js'
import type { RevocationList } from '../../auth/revocation.js'
import { AppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import type { Metrics } from '../../infra/metrics.js'
import { CLOSE } from '@tandem/protocol/close-codes'
import type { ExpiryClock } from '../expiry-clock.js'
import type { RoomRegistry } from '../registry.js'
import type { Room } from '../room/room.js'
import { refusalOf, type Refusal } from './refusal.js'

export interface SessionDeps {
  keys: KeyRing
  revocations: RevocationList
  deleted: DeletedDocs
  config: {
    /** tolerance for token `iat` ahead of our clock (seconds) */
    tokenClockSkewSec: number
    maxConnectionsPerRoom: number
    maxMessageBytes: number
  }
  registry: RoomRegistry
  metrics: Metrics
  log: Logger
  now: () => number
  /** the listener's one clock for token expiries (one timer for every socket) */
  expiry: ExpiryClock
  /**
   * the agents' policy (src/agents/): an agent's socket reads only where approval is required; absent: agents write as
   * their token says
   */
  agents?: AgentPolicy
}

/** A capability as the agents' policy leaves it (a person's, or no policy: as it says). */
export const ruled = async (d: SessionDeps, org: string, cap: Capability): Promise<Capability> =>
  d.agents ? d.agents.ruled(cap, org) : cap

/** Whether a capability may need the agents' policy (an await) before it is used; most never do. */
export const mayBeRuled = (d: SessionDeps, cap: Capability): boolean => d.agents !== undefined && agentMayBeRuled(cap)

/** A token for `{org}/{doc}`: verified, admitted to that document; throws the refusal. */
export async function verifyFor(d: SessionDeps, token: string, org: string, doc: string): Promise<Capability> {
  const verified = await verifyToken(d.keys, token, d.now(), d.config.tokenClockSkewSec)
  return admitToDocument(d, verified, org, doc)
}

const SHUTTING_DOWN: Refusal = { code: CLOSE.goingAway, reason: 'server shutting down' }
const ROOM_FULL = refusalOf(new AppError('room_full', 'room is full'))

/** Why a held room cannot take one more peer now (shutdown, full), or null. */
export function roomRefusal(room: Room, maxPeers: number): Refusal | null {
  if (room.destroyed) return SHUTTING_DOWN
  return room.peers.size >= maxPeers ? ROOM_FULL : null
}
