// Content jobs on documents kept warm in one long-lived worker thread (warm-worker.ts): the Y.Doc
// stays built and its Markdown view printed between calls, and each call first catches it up with
// the log entries committed since (applying an update twice changes nothing, so a catch-up never
// has to be exact about what the copy already holds). A read, an outline or a targeted edit of a
// 1 MB document then costs what it touches, not a Y.Doc build and a whole printing.
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import type { ContentRead } from './formats.js'
import { readContentOf, editOf, type EditInput, type EditResult, type Format } from './formats.js'
import { targetedOn, type TargetedInput, type TargetedResult } from './edit-apply.js'
import { partsIn, type PartsModel } from './parts-model.js'
import { WarmView } from './warm-view.js'

export type WarmJob =
  | { kind: 'read'; format: Format; root: string | null }
  | { kind: 'parts'; root: string | null }
  | { kind: 'targeted'; input: TargetedInput }
  | { kind: 'edit'; input: EditInput }

export interface WarmAnswers {
  read: ContentRead
  parts: PartsModel
  targeted: TargetedResult
  edit: EditResult
}

/** How the copy catches up: the whole document, or the log entries since the copy's seq. */
export type Feed = { full: Uint8Array } | { updates: Uint8Array[] }

export type WarmRequest =
  { id: number; key: string; feed: Feed; job: WarmJob } | { id: number; key: string; evict: true }

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

/** The warm documents of one worker, least recently used first. */
export class WarmDocs {
  private readonly docs = new Map<string, Warm>()

  run(req: WarmRequest): WarmReply {
    if ('evict' in req) {
      this.drop(req.key)
      return { id: req.id, ok: null }
    }
    let warm = this.docs.get(req.key)
    if (!warm && !('full' in req.feed)) return { id: req.id, missing: true }
    if ('full' in req.feed) {
      this.drop(req.key)
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
    try {
      return { id: req.id, ok: this.answer(warm!, req.job) }
    } catch (err) {
      // a job that failed half-way may have changed the copy: it is built again next time
      this.drop(req.key)
      if (err instanceof AppError) return { id: req.id, refused: { code: err.code, message: err.message } }
      throw err
    }
  }

  private answer(w: Warm, job: WarmJob): unknown {
    // The view watches the root as the document's own XmlFragment: a root read from the item
    // lists is a bare type, which getXmlFragment (an edit) replaces, and it would hear nothing.
    const viewOf = (name: string) => {
      let v = w.views.get(name)
      if (!v) w.views.set(name, (v = new WarmView(name, w.doc.getXmlFragment(name))))
      return v.view()
    }
    switch (job.kind) {
      case 'read':
        return readContentOf(w.doc, job.format, job.root, (name) => viewOf(name).markdown)
      case 'parts':
        return partsIn(w.doc, job.root, viewOf)
      case 'targeted':
        return targetedOn(w.doc, job.input, viewOf)
      case 'edit':
        return editOf(w.doc, job.input)
    }
  }

  private drop(key: string): void {
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
