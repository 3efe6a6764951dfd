// The Markdown views of part reads, kept per document state: an outline, then section after
// section from the same base, builds the view once. Keyed by the sealed base (which names one
// state of one document in one storage epoch) and root; bounded by entries and by characters, the
// least recently used dropped first. A document that changes builds a new view on its next read.
import type { Lined } from './parts-lines.js'

const MAX_ENTRIES = 16
/** 16 M characters of Markdown (about 32 MB as UTF-16, plus the block lists) */
const MAX_CHARS = 16 * 1024 * 1024

export class PartsCache {
  private readonly views = new Map<string, Lined>()
  private chars = 0

  get(key: string): Lined | undefined {
    const v = this.views.get(key)
    if (v) {
      this.views.delete(key)
      this.views.set(key, v)
    }
    return v
  }

  set(key: string, view: Lined): void {
    if (view.markdown.length > MAX_CHARS / 4 || this.views.has(key)) return
    this.views.set(key, view)
    this.chars += view.markdown.length
    for (const [k, v] of this.views) {
      if (this.views.size <= MAX_ENTRIES && this.chars <= MAX_CHARS) break
      this.views.delete(k)
      this.chars -= v.markdown.length
    }
  }
}
