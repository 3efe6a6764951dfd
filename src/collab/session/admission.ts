// What a document's admission needs and checks, for both protocols: a token verified and admitted
// to exactly its document (auth/admission.ts: document, deleted, deny-list), then the held room
// checked once more before the join (deleted meanwhile, shutting down, full).
import { admitToDocument } from '../../auth/admission.js'
import { verifyToken, type Capability } from '../../auth/capability.js'
import type { DeletedDocs } from '../../auth/deleted-docs.js'
import type { KeyRing } from '../../auth/keys/ring.js'
import type { RevocationList } from '../../auth/revocation.js'
import { AppError } from '../../infra/errors.js'
import type { Logger } from '../../infra/log.js'
import type { Metrics } from '../../infra/metrics.js'
import { CLOSE } from '../../protocol/close-codes.js'
import { narrowAgent } from '../approval-enforcer.js'
import type { ExpiryClock } from '../expiry-clock.js'
import type { Peer } from '../peer.js'
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
  /** the approval mode of agents' edits in a workspace (`org`); absent: agents write as their token says */
  approval?: (org: string) => Promise<'no_approval' | 'required_with_override' | 'required_no_override'>
}

/**
 * An agent's token (`source: ai`) where its workspace requires approval for agents' edits reads
 * only: its edits go through /content, held as suggestions. Any other token is as it says, at no cost.
 */
export async function ruled(d: SessionDeps, org: string, cap: Capability): Promise<Capability> {
  if (cap.acc !== 'rw' || cap.attr?.source !== 'ai' || !d.approval) return cap
  return (await d.approval(org)) === 'no_approval' ? cap : { ...cap, acc: 'r' }
}

/** Whether a capability may need the approval rule (an await) before it is used. */
export const mayBeRuled = (d: SessionDeps, cap: Capability) => cap.acc === 'rw' && cap.attr?.source === 'ai' && d.approval !== undefined

/**
 * A writing agent just joined: the approval mode is read once more, for a change between the
 * admission's read of it and the join, which the change's sweep over joined sockets
 * (approval-enforcer.ts) could not see.
 */
export function ruleAgainAfterJoin(d: SessionDeps, org: string, peer: Peer): void {
  if (!mayBeRuled(d, peer.cap)) return
  ruled(d, org, peer.cap).then(
    (now) => (now.acc === 'rw' ? undefined : narrowAgent(peer)),
    (err: unknown) => d.log.warn({ err }, "approval mode not re-read after an agent's join; its next token refresh rules it"),
  )
}

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
