// Comment threads on assets and their comments. Comments are keyed by a per-thread sequence number
// so a prefix scan returns them in creation order; writes to one thread are serialised.
import { AppError } from '../infra/errors.js'
import { newId, normalizeEmail } from './ids.js'
import { key, type ControlStore, type Op } from './store.js'

/** Where a comment thread points in its document: two Yjs relative positions in one text node. */
export interface TextAnchor {
  root: string
  /** base64 of Y.encodeRelativePosition */
  start: string
  end: string
}

export interface Thread {
  id: string
  assetId: string
  level: 'asset' | 'anchor'
  anchor?: TextAnchor
  data: Record<string, unknown>
  nextSeq: number
  createdAtMs: number
  updatedAtMs: number
  resolvedAtMs: number | null
  archivedAtMs: number | null
}

export interface Comment {
  id: string
  threadId: string
  seq: number
  userId: string | null
  contentJson: string
  text: string
  reactions: Record<string, string[]>
  deleted: boolean
  createdAtMs: number
  updatedAtMs: number
}

const threadKey = (asset: string, id: string) => key('thread', asset, id)
const threadIndex = (id: string) => key('threadid', id)
const commentKey = (thread: string, seq: number) => key('comment', thread, String(seq).padStart(10, '0'))

/** The rich-text JSON of a plain-text comment: one paragraph per line (ProseMirror document shape). */
export function richTextOf(text: string): string {
  return JSON.stringify({
    type: 'doc',
    content: text
      .split('\n')
      .map((line) => (line ? { type: 'paragraph', content: [{ type: 'text', text: line }] } : { type: 'paragraph' })),
  })
}

export function threadOps(t: Thread): Op[] {
  return [
    { type: 'put', key: threadKey(t.assetId, t.id), value: t },
    { type: 'put', key: threadIndex(t.id), value: t.assetId },
  ]
}

export function commentOp(c: Comment): Op {
  return { type: 'put', key: commentKey(c.threadId, c.seq), value: c }
}

export function newThread(
  assetId: string,
  opts: { anchor?: TextAnchor; data?: Record<string, unknown>; id?: string },
  nowMs: number,
): Thread {
  return {
    id: opts.id ?? newId('th'),
    assetId,
    level: opts.anchor ? 'anchor' : 'asset',
    ...(opts.anchor ? { anchor: opts.anchor } : {}),
    data: opts.data ?? {},
    nextSeq: 0,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    resolvedAtMs: null,
    archivedAtMs: null,
  }
}

export async function createThread(store: ControlStore, t: Thread): Promise<Thread> {
  await store.batch(threadOps(t))
  return t
}

export async function requireThread(store: ControlStore, threadId: string): Promise<Thread> {
  const assetId = await store.get<string>(threadIndex(threadId))
  const t = assetId ? await store.get<Thread>(threadKey(assetId, threadId)) : undefined
  if (!t) throw new AppError('not_found', `no comment thread ${threadId}`)
  return t
}

export async function addComment(
  store: ControlStore,
  threadId: string,
  c: { user: string | null; text: string; contentJson?: string },
  nowMs: number,
): Promise<Comment> {
  return store.serial(key('thread', threadId), async () => {
    const t = await requireThread(store, threadId)
    const comment: Comment = {
      id: newId('cm'),
      threadId,
      seq: t.nextSeq,
      userId: c.user ? normalizeEmail(c.user) : null,
      contentJson: c.contentJson ?? richTextOf(c.text),
      text: c.text,
      reactions: {},
      deleted: false,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    }
    await store.batch([...threadOps({ ...t, nextSeq: t.nextSeq + 1, updatedAtMs: nowMs }), commentOp(comment)])
    return comment
  })
}

/** Changes a comment in place (react, delete); `edit` returns the new record. */
export async function updateComment(
  store: ControlStore,
  threadId: string,
  commentId: string,
  edit: (c: Comment) => Comment,
  nowMs: number,
): Promise<Comment> {
  return store.serial(key('thread', threadId), async () => {
    const t = await requireThread(store, threadId)
    const found = (await listComments(store, threadId, true)).find((c) => c.id === commentId)
    if (!found) throw new AppError('not_found', `no comment ${commentId} in thread ${threadId}`)
    const next = { ...edit(found), updatedAtMs: nowMs }
    await store.batch([commentOp(next), ...threadOps({ ...t, updatedAtMs: nowMs })])
    return next
  })
}

export async function setThreadState(
  store: ControlStore,
  threadId: string,
  state: 'resolved' | 'archived' | 'open',
  nowMs: number,
): Promise<Thread> {
  return store.serial(key('thread', threadId), async () => {
    const t = await requireThread(store, threadId)
    const next: Thread = {
      ...t,
      resolvedAtMs: state === 'resolved' ? (t.resolvedAtMs ?? nowMs) : state === 'open' ? null : t.resolvedAtMs,
      archivedAtMs: state === 'archived' ? (t.archivedAtMs ?? nowMs) : state === 'open' ? null : t.archivedAtMs,
      updatedAtMs: nowMs,
    }
    await store.batch(threadOps(next))
    return next
  })
}

export async function listThreads(store: ControlStore, assetId: string): Promise<Thread[]> {
  const threads = (await store.list<Thread>(key('thread', assetId))).map((r) => r.value)
  return threads.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1))
}

export async function listComments(store: ControlStore, threadId: string, includeDeleted = false): Promise<Comment[]> {
  const all = (await store.list<Comment>(key('comment', threadId))).map((r) => r.value)
  return includeDeleted ? all : all.filter((c) => !c.deleted)
}

export function toggleReaction(c: Comment, emoji: string, user: string): Comment {
  const userId = normalizeEmail(user)
  const users = c.reactions[emoji] ?? []
  const next = users.includes(userId) ? users.filter((u) => u !== userId) : [...users, userId]
  const reactions = { ...c.reactions }
  if (next.length) reactions[emoji] = next
  else delete reactions[emoji]
  return { ...c, reactions }
}

/** Keys of every thread and comment of the asset (a hard delete erases them with the asset). */
export async function threadRecordKeys(store: ControlStore, assetId: string): Promise<string[]> {
  const out: string[] = []
  for (const t of await listThreads(store, assetId)) {
    out.push(threadKey(assetId, t.id), threadIndex(t.id), ...(await store.list(key('comment', t.id))).map((c) => c.key))
  }
  return out
}
