// document.updated: per document, a window opens with its first change and closes debounce ms
// later (at most one event per document per debounce, at least one that long after a change).
// Durability: the cycle that opens a window carries a mark (`webhooks!{docId}!{since}`) in the
// same atomic write as its updates (AppendWrite.marks), so a killed process leaves marks from
// which the start re-derives each open window out of the log. Closing happens between cycles
// (never while one is in flight), so a mark is deleted only once its window's event is recorded
// and a later window always gets a mark of its own. With no webhook watching a workspace, the
// cost per cycle is one Set lookup per document.
import type { CommitSink } from '../collab/group-commit.js'
import type { AppendWrite, DocStore } from '../storage/doc-store.js'

const WEBHOOK_MARKS = 'webhooks!'

export interface ClosedWindow {
  docId: string
  org: string
  doc: string
  /** the mark key; also what makes the event id stable across a crash */
  markKey: string
  since: number
  users: string[]
  firstAt: number
  lastAt: number
}

interface Window {
  markKey: string
  since: number
  users: Set<string>
  firstAt: number
  lastAt: number
  due: boolean
  timer: NodeJS.Timeout
}

export interface DocWindowsOptions {
  debounceMs: number
  /** the marks' key prefix, one per user of windows (default the webhooks' `webhooks!`; search has its own) */
  markPrefix?: string
  /** whether a workspace (org) has a document.updated webhook */
  watched(org: string): boolean
  /** records the event; the mark is deleted after it resolves */
  emit(w: ClosedWindow): Promise<void>
  onError(err: unknown): void
}

const pad13 = (n: number) => String(Math.floor(n)).padStart(13, '0')

/** `org/doc/main` -> its parts; other branches (drafts) do not notify. */
function mainDoc(docId: string): { org: string; doc: string } | null {
  const a = docId.indexOf('/')
  const b = docId.indexOf('/', a + 1)
  if (a < 0 || b < 0 || docId.slice(b + 1) !== 'main') return null
  return { org: docId.slice(0, a), doc: docId.slice(a + 1, b) }
}

export class DocWindows implements CommitSink {
  private readonly open = new Map<string, Window>()
  private inFlight = false
  private closed = false
  private readonly pending = new Set<Promise<void>>()
  private readonly prefix: string

  constructor(
    private readonly store: DocStore,
    private readonly o: DocWindowsOptions,
  ) {
    this.prefix = o.markPrefix ?? WEBHOOK_MARKS
  }

  mark(writes: AppendWrite[]): void {
    this.inFlight = true
    for (const w of writes) {
      if (this.open.has(w.docId) || w.entries.length === 0) continue
      const parts = mainDoc(w.docId)
      if (!parts || !this.o.watched(parts.org)) continue
      const since = w.entries[0]!.at
      ;(w.marks ??= []).push({ key: `${this.prefix}${w.docId}!${pad13(since)}`, value: '' })
    }
  }

  committed(writes: readonly AppendWrite[]): void {
    this.inFlight = false
    for (const w of writes) {
      let win = this.open.get(w.docId)
      const mark = w.marks?.find((m) => m.key.startsWith(this.prefix))
      if (!win) {
        // after flush (shutdown) a new window is left to its mark and the next start
        if (!mark || this.closed) continue
        const since = Number(mark.key.slice(-13))
        const timer = setTimeout(() => this.due(w.docId), this.o.debounceMs)
        timer.unref()
        win = { markKey: mark.key, since, users: new Set(), firstAt: Infinity, lastAt: 0, due: false, timer }
        this.open.set(w.docId, win)
      }
      for (const e of w.entries) {
        win.users.add(e.user)
        if (e.at < win.firstAt) win.firstAt = e.at
        if (e.at > win.lastAt) win.lastAt = e.at
      }
    }
    for (const [docId, win] of this.open) if (win.due) this.close(docId, win)
  }

  failed(): void {
    this.inFlight = false
    for (const [docId, win] of this.open) if (win.due) this.close(docId, win)
  }

  private due(docId: string): void {
    const win = this.open.get(docId)
    if (!win) return
    win.due = true
    if (!this.inFlight) this.close(docId, win)
  }

  private close(docId: string, win: Window): void {
    this.open.delete(docId)
    clearTimeout(win.timer)
    const parts = mainDoc(docId)!
    this.track({
      docId,
      ...parts,
      markKey: win.markKey,
      since: win.since,
      users: [...win.users].sort(),
      firstAt: win.firstAt,
      lastAt: win.lastAt,
    })
  }

  private track(w: ClosedWindow): void {
    const p = this.o
      .emit(w)
      .then(() => this.store.deleteMarks?.([w.markKey]))
      .catch((err) => {
        // the mark stays: the next start records the event from it
        this.o.onError(err)
      })
      .finally(() => this.pending.delete(p))
    this.pending.add(p)
  }

  /**
   * Windows a killed process left open: one event per mark, its users and times read from the
   * log since the window opened (entries already pruned are simply not named). `openedBefore`:
   * only marks of windows opened before that ms (a cluster's live nodes close theirs long before;
   * one still there belongs to a node that died). The event id comes from the mark, so a window
   * recovered twice is recorded once.
   */
  async recover(openedBefore = Infinity): Promise<number> {
    if (!this.store.readMarks) return 0
    const marks: string[] = []
    for await (const m of this.store.readMarks(this.prefix)) marks.push(m.key)
    let recovered = 0
    for (const markKey of marks) {
      const docId = markKey.slice(this.prefix.length, -14)
      const since = Number(markKey.slice(-13))
      const parts = mainDoc(docId)
      if (!parts || since >= openedBefore || this.open.get(docId)?.markKey === markKey) continue
      const users = new Set<string>()
      let firstAt = Infinity
      let lastAt = 0
      for await (const e of this.store.readLog(docId)) {
        if (e.at < since) continue
        users.add(e.user)
        firstAt = Math.min(firstAt, e.at)
        lastAt = Math.max(lastAt, e.at)
      }
      if (firstAt === Infinity) firstAt = lastAt = since
      this.track({ docId, ...parts, markKey, since, users: [...users].sort(), firstAt, lastAt })
      recovered++
    }
    return recovered
  }

  /** Closes every open window now (shutdown): their events are recorded, not left to a mark. */
  async flush(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const [docId, win] of this.open) this.close(docId, win)
    await Promise.allSettled([...this.pending])
  }
}
