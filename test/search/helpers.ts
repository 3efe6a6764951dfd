// Search test helpers: a document's content written the way an editor writes it (paragraphs of the
// `default` XML fragment, applied as an update through the rooms), and the search call.
import { paragraphsUpdate } from '../../src/content/doc-seed.js'
import type { Asset } from '../../src/control/assets.js'
import { call, type Reply } from '../api/helpers.js'
import type { Harness } from '../helpers/tandem.js'

/** Appends paragraphs (one per line of `text`) to the document, durable when this resolves. */
export async function write(h: Harness, doc: Asset, text: string): Promise<void> {
  await h.server.deps.docs.applyUpdate({ org: doc.workspaceId, doc: doc.id }, paragraphsUpdate(text), 'ann@example.com')
}

export function search(h: Harness, key: string, workspaceId: string, q: string, extra = ''): Promise<Reply> {
  return call(h, 'GET', `/api/v0/workspaces/${workspaceId}/search?q=${encodeURIComponent(q)}${extra}`, { key })
}

/** The ids of the documents a search finds, in rank order. */
export async function found(h: Harness, key: string, workspaceId: string, q: string): Promise<string[]> {
  const r = await search(h, key, workspaceId, q)
  if (r.status !== 200) throw new Error(`search answered ${r.status}: ${JSON.stringify(r.body)}`)
  return (r.body.results as { doc_id: string }[]).map((x) => x.doc_id)
}
