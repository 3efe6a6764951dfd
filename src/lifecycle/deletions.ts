// The document lifecycle inside a server: the deleted-documents deny-set, kept fresh like the token
// deny-list (re-read at once when this process writes a deletion, periodically for other
// processes), and what a change does to this process's live rooms: a deleted document's sockets
// close with 4404; a hard-deleted one's rooms are dropped unwritten and its stores erased.
import { DELETED_PREFIX, DOC_DELETED_MESSAGE, DeletedDocs, type DocDeletion } from '../auth/deleted-docs.js'
import type { VersionPoll } from '../auth/polled-records.js'
import type { RoomRegistry } from '../collab/registry.js'
import type { Logger } from '../infra/log.js'
import type { Resources } from '../infra/resources.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import { CLOSE } from '@tandem/protocol/close-codes'
import type { DocStore } from '../storage/doc-store.js'
import type { SuggestionStore } from '../suggestions/store.js'
import type { VersionStore } from '../versions/store.js'
import { AssetLifecycle, type LifecycleDeps } from './asset-lifecycle.js'

export interface LifecycleParts {
  log: Logger
  now: () => number
  control: HookedControlStore
  registry: RoomRegistry
  /** the document store rooms and history use */
  store: DocStore
  versions: VersionStore
  suggestions: SuggestionStore
  /** the server's database registry, built on first use */
  databases: LifecycleDeps['databases']
  /** what the server's history service holds in memory, dropped on a hard delete */
  history: LifecycleDeps['history']
  /** the server's periodic check of control-plane caches (other processes' writes) */
  versionPoll: VersionPoll
}

/** Starts the deny-set (loaded before the collab listener serves) and the lifecycle of this server. */
export async function startDocLifecycle(
  resources: Resources,
  p: LifecycleParts,
): Promise<{ deleted: DeletedDocs; lifecycle: AssetLifecycle }> {
  const { log, control, registry } = p
  const deleted = resources.add('deleted documents', new DeletedDocs(control), (d) => d.records.stop())
  const lifecycle = new AssetLifecycle({
    control,
    docs: p.store,
    versions: p.versions,
    suggestions: p.suggestions,
    rooms: registry,
    databases: p.databases,
    history: p.history,
    now: p.now,
  })

  const purge = (d: DocDeletion) =>
    lifecycle.purge(d).catch((err: unknown) => log.error({ err, asset: d.assetId }, 'hard delete: erasing failed'))
  deleted.records.onChange((changed, initial) => {
    for (const d of changed) {
      registry.closeDocument(d.org, d.doc, CLOSE.docDeleted, DOC_DELETED_MESSAGE)
      // At start no room is loaded: only an erase that never finished (the writer died) is redone.
      if (d.hard && !(initial && d.erasedAtMs)) void purge(d)
    }
  })
  control.addHook({
    // awaited by the batch: when a delete answers, this process refuses the document
    after: async (ops) => {
      if (ops.some((op) => op.key.startsWith(`${DELETED_PREFIX}/`))) {
        await deleted.records
          .refresh(true)
          .catch((err: unknown) => log.error({ err }, 'deleted documents refresh failed'))
      }
    },
  })
  await deleted.records.start(p.versionPoll, (err) => log.error({ err }, 'deleted documents refresh failed'))
  return { deleted, lifecycle }
}
