// Comment threads of an asset in the spec's shape. Anchored threads get, in `data.anchor`, their Yjs
// relative positions (base64 of Y.encodeRelativePosition) and the text currently between them.
import { listComments, listThreads, type Comment, type Thread } from '../../../control/comments.js'
import { iso } from '../../../control/ids.js'
import type { ControlStore } from '../../../control/store.js'

export interface ThreadsWithComments {
  thread: Thread
  comments: Comment[]
}

export async function loadThreads(store: ControlStore, assetId: string): Promise<ThreadsWithComments[]> {
  const threads = await listThreads(store, assetId)
  // A record that is not a thread means the comment data cannot be trusted: the caller answers null.
  for (const t of threads)
    if (typeof t?.id !== 'string' || typeof t.createdAtMs !== 'number') throw new Error('corrupt comment thread record')
  return Promise.all(threads.map(async (thread) => ({ thread, comments: await listComments(store, thread.id) })))
}

/** A thread as the API shows it; `anchored`: the text its anchor spans now (null when it does not resolve). */
export function threadOut({ thread: t, comments }: ThreadsWithComments, anchored: string | null) {
  const data: Record<string, unknown> = { ...t.data }
  if (t.anchor) {
    data.anchor = {
      type: 'yjs-relative-position',
      root: t.anchor.root,
      start: t.anchor.start,
      end: t.anchor.end,
      text: anchored,
    }
  }
  return {
    id: t.id,
    archived_at: iso(t.archivedAtMs),
    resolved_at: iso(t.resolvedAtMs),
    created_at: iso(t.createdAtMs),
    updated_at: iso(t.updatedAtMs),
    comments: comments.map((c) => ({
      id: c.id,
      content_json: c.contentJson,
      text: c.text,
      created_at: iso(c.createdAtMs),
      updated_at: iso(c.updatedAtMs),
      reactions: c.reactions,
      user_id: c.userId,
    })),
    data,
    level: t.level,
  }
}
