// The Markdown views of recent bases, kept in the warm content worker beside their documents: an
// outline, then section after section from the same base, and the targeted edit from it, read one
// view built once. Keyed by document (its id and storage epoch), base form (`12`, `12~15`: one
// state of that document) and root; bounded by entries and characters, least recently used
// dropped first. The view a targeted edit leaves is held unnamed until the server knows the seq
// of its update, then named by the base the edit answers (`label`).
import { lengthOf, type Lined } from './parts-lines.js'

/** Where a view job reads: the view of base `form` (token `base`), the document now, or one built from `state`. */
export interface ViewAt {
  /** the base's seq form (base.ts): the key of its view */
  form: string
  /** the sealed base the answer and its cursors give out */
  base: string
  /** the base is the document as the catch-up leaves it: its view is the warm copy's own */
  now: boolean
  /** the document at the base, rebuilt by the server when the worker held no view of it */
  state?: Uint8Array
}

/** The base the view a targeted edit left now names. */
export interface ViewLabel {
  form: string
  root: string | null
}

const MAX_ENTRIES = 16
/** 16 M characters of Markdown (about 32 MB as UTF-16, plus the block lists) */
const MAX_CHARS = 16 * 1024 * 1024

export class ViewShelf {
  private readonly views = new Map<string, Lined>()
  private readonly held = new Map<string, { root: string | null; view: Lined }>()
  private chars = 0

  private keyOf = (doc: string, form: string, root: string | null) => `${doc}\n${form}\n${root ?? ''}`

  get(doc: string, form: string, root: string | null): Lined | undefined {
    const key = this.keyOf(doc, form, root)
    const v = this.views.get(key)
    if (v) {
      this.views.delete(key)
      this.views.set(key, v)
    }
    return v
  }

  set(doc: string, form: string, root: string | null, view: Lined): void {
    const key = this.keyOf(doc, form, root)
    if (lengthOf(view) > MAX_CHARS / 4 || this.views.has(key)) return
    this.views.set(key, view)
    this.chars += lengthOf(view)
    for (const [k, v] of this.views) {
      if (this.views.size <= MAX_ENTRIES && this.chars <= MAX_CHARS) break
      this.views.delete(k)
      this.chars -= lengthOf(v)
    }
  }

  /** Holds the view a targeted edit of `doc` left, until `label` names it (or the next edit replaces it). */
  hold(doc: string, root: string | null, view: Lined): void {
    this.held.set(doc, { root, view })
  }

  label(doc: string, label: ViewLabel): void {
    const h = this.held.get(doc)
    this.held.delete(doc)
    if (h && h.root === label.root) this.set(doc, label.form, label.root, h.view)
  }

  /** Forgets every view of `doc` (its copy is gone or wrong). */
  drop(doc: string): void {
    this.held.delete(doc)
    const prefix = `${doc}\n`
    for (const [k, v] of this.views) {
      if (!k.startsWith(prefix)) continue
      this.views.delete(k)
      this.chars -= lengthOf(v)
    }
  }
}
