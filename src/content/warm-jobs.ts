// Content jobs on documents kept warm in one long-lived worker thread (warm-worker.ts): the Y.Doc
// stays built and its Markdown view printed between calls, and each call first catches it up with
// the log entries committed since (applying an update twice changes nothing, so a catch-up never
// has to be exact about what the copy already holds). A read, an outline or a targeted edit of a
// 1 MB document then costs what it touches, not a Y.Doc build and a whole printing.
//
// The views of recent bases stay here too (views.ts), and a part read or a targeted edit is
// answered here from them: only the answer crosses back, never the 1 MB view (each copy of which
// costs more than the edit itself).
import * as Y from 'yjs'
import type { PartRead, StreamWhere } from '@tandem/api/content'
import { AppError } from '../infra/errors.js'
import type { ContentRead } from './formats.js'
import { readContentOf, editOf, namesOf, type EditInput, type EditResult, type Format } from './formats.js'
import { targetedOn, type TargetedResult } from './edit-apply.js'
import { EditRefused, locate } from './edit-locate.js'
import type { EditOp } from './edit-ops.js'
import { answerPart, type PartAsk } from './parts-answer.js'
import { withLines, type Lined } from './parts-lines.js'
import { buildParts, partsIn } from './parts-model.js'
import { WarmView } from './warm-view.js'
import { caretAt, type AgentCaret } from './caret.js'
import { vocabularyOf } from './pm-json.js'
import { anchorOf, streamRun, type StreamAnchor, type StreamStep } from './stream-step.js'
import { ViewShelf, type ViewAt, type ViewLabel } from './view-shelf.js'

export type { ViewAt, ViewLabel } from './view-shelf.js'

export type WarmJob =
  | { kind: 'read'; format: Format; root: string | null }
  | { kind: 'part'; at: ViewAt; root: string | null; ask: PartAsk; budget: number }
  | { kind: 'targeted'; at: ViewAt; root: string | null; ops: EditOp[]; context: number; step?: StreamStep }
  | { kind: 'edit'; input: EditInput }
  | { kind: 'caret'; root: string | null; at: string | null; quote: string | null }
  | { kind: 'anchor'; root: string | null; where: StreamWhere }

/** The worker holds no view of the base and the server sent no state to build it from. */
export interface NeedsState {
  needsState: true
}

/** A targeted edit's answer: what changed, without the view after it (kept here, see `label`). */
type TargetedAnswer =
  | Exclude<TargetedResult, { model: unknown }>
  | (Omit<Extract<TargetedResult, { model: unknown }>, 'model'> & { lead?: string })

export interface WarmAnswers {
  read: ContentRead
  part: PartRead | NeedsState
  targeted: TargetedAnswer | NeedsState
  edit: EditResult
  caret: { block: string; cursor: AgentCaret }
  anchor: StreamAnchor
}

/** How the copy catches up: the whole document, or the log entries since the copy's seq. */
export type Feed = { full: Uint8Array } | { updates: Uint8Array[] }

export type WarmRequest =
  /** `label`: the last targeted edit's view named first (sent with the next call, not a message of its own) */
  { id: number; key: string; feed: Feed; job: WarmJob; label?: ViewLabel } | { id: number; key: string; evict: true }

export type WarmReply =
  | { id: number; ok: unknown }
  | { id: number; refused: { code: string; message: string } }
  | { id: number; missing: true }

/** At most this many encoded bytes of documents are kept warm (a built Y.Doc takes about 14x). */
const WARM_MAX_BYTES = 24 * 1024 * 1024
const WARM_MAX_DOCS = 16

interface Warm {
  doc: Y.Doc
  views: Map<string, WarmView>
  bytes: number
}

/** The warm documents of one worker, least recently used first, and the views of their recent bases. */
export class WarmDocs {
  private readonly docs = new Map<string, Warm>()
  private readonly shelf = new ViewShelf()

  run(req: WarmRequest): WarmReply {
    if ('evict' in req) {
      this.drop(req.key)
      return { id: req.id, ok: null }
    }
    if (req.label) this.shelf.label(req.key, req.label)
    let warm = this.docs.get(req.key)
    if (!warm && !('full' in req.feed)) return { id: req.id, missing: true }
    if ('full' in req.feed) {
      // The same document (the key names its storage epoch) caught up whole, past a compacted
      // log: the views of its earlier bases still read those bases, so they stay on the shelf.
      this.dropCopy(req.key)
      const doc = new Y.Doc()
      Y.applyUpdate(doc, req.feed.full)
      warm = { doc, views: new Map(), bytes: req.feed.full.length }
    } else {
      for (const u of req.feed.updates) {
        Y.applyUpdate(warm!.doc, u)
        warm!.bytes += u.length
      }
    }
    this.docs.delete(req.key)
    this.docs.set(req.key, warm!)
    this.trim()
    const changing = { now: false }
    try {
      return { id: req.id, ok: this.answer(req.key, warm!, req.job, changing) }
    } catch (err) {
      // a job that failed half-way through a change may have changed the copy: built again next time
      if (changing.now) this.drop(req.key)
      if (err instanceof AppError) return { id: req.id, refused: { code: err.code, message: err.message } }
      throw err
    }
  }

  private answer(key: string, w: Warm, job: WarmJob, changing: { now: boolean }): unknown {
    // The view watches the root as the document's own XmlFragment: a root read from the item
    // lists is a bare type, which getXmlFragment (an edit) replaces, and it would hear nothing.
    const viewOf = (name: string) => {
      let v = w.views.get(name)
      if (!v) w.views.set(name, (v = new WarmView(name, w.doc.getXmlFragment(name))))
      return v.view()
    }
    /** The view of the job's base: kept, the document now, or built from the state the server sent. */
    const viewAt = (at: ViewAt, root: string | null): Lined | null => {
      const kept = this.shelf.get(key, at.form, root)
      if (kept) return kept
      if (!at.now && !at.state) return null
      const view = withLines(at.now ? partsIn(w.doc, root, viewOf) : buildParts(at.state!, root))
      this.shelf.set(key, at.form, root, view)
      return view
    }
    switch (job.kind) {
      case 'read':
        return readContentOf(w.doc, job.format, job.root, (name) => viewOf(name).markdown)
      case 'part': {
        const view = viewAt(job.at, job.root)
        if (!view) return { needsState: true } satisfies NeedsState
        return answerPart({ view, base: job.at.base }, job.ask, job.budget)
      }
      case 'targeted': {
        const view = viewAt(job.at, job.root)
        if (!view) return { needsState: true } satisfies NeedsState
        let runs
        let lead: string | undefined
        try {
          if (job.step) {
            const vocabulary = vocabularyOf(namesOf(w.doc.getXmlFragment(view.root)))
            const stepped = streamRun(view, job.step, vocabulary)
            runs = stepped ? [stepped.run] : []
            lead = stepped?.lead
          } else runs = locate(view, job.ops)
        } catch (err) {
          if (err instanceof EditRefused) return { refused: { status: err.status, json: err.json } }
          throw err
        }
        changing.now = true
        const done = targetedOn(w.doc, { root: view.root, runs, context: job.context }, viewOf)
        if ('refused' in done) return done
        const { model, ...answer } = done
        // the document as the edit leaves it: named once the server knows the update's seq
        this.shelf.hold(key, job.root, withLines(model))
        return lead === undefined ? answer : { ...answer, lead }
      }
      case 'edit':
        changing.now = true
        return editOf(w.doc, job.input)
      case 'anchor':
        return anchorOf(withLines(partsIn(w.doc, job.root, viewOf)), job.where)
      case 'caret':
        return caretAt(w.doc, withLines(partsIn(w.doc, job.root, viewOf)), job.at, job.quote)
    }
  }

  private drop(key: string): void {
    this.shelf.drop(key)
    this.dropCopy(key)
  }

  /** The document's copy and its live views go; the shelf's views of its bases stay. */
  private dropCopy(key: string): void {
    const w = this.docs.get(key)
    if (!w) return
    for (const v of w.views.values()) v.destroy()
    w.doc.destroy()
    this.docs.delete(key)
  }

  private trim(): void {
    let bytes = 0
    for (const w of this.docs.values()) bytes += w.bytes
    for (const [key, w] of this.docs) {
      if (this.docs.size <= 1 || (bytes <= WARM_MAX_BYTES && this.docs.size <= WARM_MAX_DOCS)) break
      bytes -= w.bytes
      this.drop(key)
    }
  }
}
