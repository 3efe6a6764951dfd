// A named version's seq and state, as rollback `{version}` asks for them.
import { VERSION_ID } from './record.js'
import type { VersionStore } from './store.js'

/** A version's seq and state for rollback `{version}`; null when there is no such version. */
export async function versionState(
  versions: VersionStore,
  docId: string,
  id: string,
): Promise<{ seq: number; state: Uint8Array } | null> {
  if (!VERSION_ID.test(id)) return null
  const record = await versions.get(docId, id)
  const state = record && (await versions.state(docId, id))
  return record && state ? { seq: record.seq, state } : null
}
