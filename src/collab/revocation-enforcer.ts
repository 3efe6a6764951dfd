// Brings live sockets in line with the deny-list the moment it changes: a socket whose token is
// now refused is closed with 4401 (its client re-mints or gives up), one whose token is now
// read-only keeps its socket with `r` access and is told so. Only the users named by the changed
// records are looked at; the check itself is in memory.
import type { Revocation, RevocationList } from '../auth/revocation.js'
import { CLOSE } from '@tandem/protocol/close-codes'
import type { Metrics } from '../infra/metrics.js'
import type { Peer } from './peer.js'
import type { RoomRegistry } from './registry.js'

const REVOKED_REASON = 'token revoked: reconnect with a new token'

/** Applies the deny-list to one peer; false when the peer was closed. */
export function enforceOn(list: RevocationList, peer: Peer, metrics: Metrics): boolean {
  if (peer.closed) return false
  const effect = list.effectFor(peer.cap)
  if (effect) metrics.authRefusals.inc({ where: 'live', reason: effect === 'deny' ? 'revoked' : 'readonly' })
  if (effect === 'deny') {
    peer.close(CLOSE.tokenExpired, REVOKED_REASON)
    return false
  }
  if (effect === 'readonly') peer.narrowToReadOnly()
  return true
}

export function enforceRevocations(registry: RoomRegistry, list: RevocationList, metrics: Metrics): () => void {
  return list.onChange((changed: Revocation[]) => {
    metrics.revocations.set(list.size)
    const subs = new Set(changed.map((r) => r.sub))
    for (const room of registry.all()) {
      for (const peer of [...room.peers]) if (subs.has(peer.cap.sub)) enforceOn(list, peer, metrics)
    }
  })
}
