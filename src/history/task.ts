// What a history route asks of a document's history, as plain data: a job (job.ts) answers it in
// the event loop or in a worker thread, so a task holds no function and its answer no Y.Doc.
import * as Y from 'yjs'
import type { Attributes } from '../storage/doc-store.js'
import { activity, type ActivityQuery } from './activity.js'
import { changeset, type Changeset, type Window } from './changeset.js'
import { documentAt, documentAtSeq } from './document-at.js'
import { entryDelta, type DeltaOp } from './entry-delta.js'
import { rollback, type RollbackResult } from './rollback.js'
import { wantAt, wantVersion, wantWithout, withVersionContent, type Want } from './rollback-wants.js'
import type { DocHistory } from './timeline.js'
import type { AttrFilter } from './who.js'

/** What a rollback wants the document to be. */
export type RollbackTarget =
  | { kind: 'to'; to: number }
  | { kind: 'version'; seq: number; state: Uint8Array }
  | { kind: 'window'; from: number; to: number; by: ReadonlySet<string> | null; attr: AttrFilter }

export type Task =
  /** nothing to answer: the history is only brought up to date (checkpoint, fold) */
  | { kind: 'none' }
  | { kind: 'activity'; query: ActivityQuery; delta: boolean }
  | { kind: 'changeset'; window: Window; delta: boolean; ydoc: boolean }
  /** `unless`: the same rollback was applied at seq by who; nothing else changed since means no-op */
  | { kind: 'rollback'; target: RollbackTarget; unless: { seq: number; who: string } | null }
  /** the document exactly as it was after log entry `seq` (a content write's base) */
  | { kind: 'state-at'; seq: number }
  /** the last seq whose state vector is exactly `sv` (where a branch forked off), null when none retained is */
  | { kind: 'seq-of-sv'; sv: Uint8Array }

interface ActivityAnswer {
  entries: {
    from: number
    to: number
    by: string
    attributes?: Attributes
    inserted: number
    deleted: number
    delta?: DeltaOp[]
  }[]
  more: boolean
}

type ChangesetAnswer = Pick<Changeset, 'inserted' | 'deleted' | 'by'> & {
  /**
   * The roots as JSON text, serialised where they were computed: a whole history's runs are
   * megabytes, and a string crosses from a worker as one copy, not as an object per run.
   */
  rootsJson?: string
  ydoc?: Uint8Array
}

interface Answers {
  none: null
  activity: ActivityAnswer
  changeset: ChangesetAnswer
  rollback: RollbackResult
  'state-at': Uint8Array
  'seq-of-sv': number | null
}

export type AnswerOf<T extends Task> = Answers[T['kind']]

const NO_CHANGE: RollbackResult = { update: null, removed: 0, restored: 0, reformatted: 0 }

export function answer<T extends Task>(h: DocHistory, task: T): AnswerOf<T>
export function answer(h: DocHistory, task: Task): Answers[Task['kind']] {
  switch (task.kind) {
    case 'none':
      return null
    case 'activity': {
      const { groups, more } = activity(h.index, task.query)
      const entries = groups.map((g) => ({
        from: g.from,
        to: g.to,
        by: g.by,
        ...(g.attributes ? { attributes: g.attributes } : {}),
        inserted: g.inserted,
        deleted: g.deleted,
        ...(task.delta ? { delta: entryDelta(h, g.entries) } : {}),
      }))
      return { entries, more }
    }
    case 'changeset': {
      const cs = changeset(h, task.window)
      return {
        inserted: cs.inserted,
        deleted: cs.deleted,
        by: cs.by,
        ...(task.delta ? { rootsJson: JSON.stringify(cs.roots) } : {}),
        ...(task.ydoc ? { ydoc: documentAt(h, task.window.to) } : {}),
      }
    }
    case 'rollback':
      return rollbackOf(h, task.target, task.unless)
    case 'state-at':
      return documentAtSeq(h, task.seq)
    case 'seq-of-sv':
      return seqOfStateVector(h, task.sv)
  }
}

function rollbackOf(
  h: DocHistory,
  target: RollbackTarget,
  unless: { seq: number; who: string } | null,
): RollbackResult {
  if (unless && h.quietSince(unless.seq, unless.who)) return NO_CHANGE
  const want: Want =
    target.kind === 'to'
      ? wantAt(target.to)
      : target.kind === 'version'
        ? wantVersion(target.state)
        : wantWithout(target.from, target.to, target.by, target.attr)
  // A version older than the retained history may hold content retention has collected.
  const source =
    target.kind === 'version' && h.base.seq > 0 && target.seq < h.base.seq ? withVersionContent(h, target.state) : null
  try {
    return rollback(source ?? h, want)
  } finally {
    source?.destroy()
  }
}

/**
 * The last seq after which the document's state vector was exactly `target`: the base, then each
 * entry's insertions in seq order. Deletions leave the state vector as it is, so of several such
 * seqs the last is taken (what a branch copied then had them too, or will merge them anyway).
 */
function seqOfStateVector(h: DocHistory, target: Uint8Array): number | null {
  const want = Y.decodeStateVector(target)
  const sv = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(h.base.state))
  const equal = () => sv.size === want.size && [...want].every(([client, clock]) => sv.get(client) === clock)
  let found = equal() ? h.base.seq : null
  for (const e of h.index.entries()) {
    for (const [client, clock, len] of e.ins) sv.set(client, Math.max(sv.get(client) ?? 0, clock + len))
    if (equal()) found = e.seq
    else if (found !== null) break
  }
  return found
}

/** Encoded bytes of the Y.Docs a task builds besides the history itself (`history`: what that one is built from). */
export function taskBytes(task: Task, history: number): number {
  if (task.kind === 'changeset') return task.ydoc ? history : 0 // the document at `to`
  if (task.kind === 'state-at') return history
  if (task.kind !== 'rollback') return 0
  // a copy of the document to edit, and the history with the version's content under it
  return history + (task.target.kind === 'version' ? task.target.state.length + history : 0)
}
