// A suggestion: a change to a document held aside for a person to accept or reject, whole or hunk
// by hunk. The change is a Yjs update made against `base` (a content base, src/content/base.ts);
// `applied` is the base advanced by each partial accept, so the next one is computed from the
// document with what was already accepted in it. What the API shows of it is `@tandem/api/suggestions`.
import type { SuggestionView } from '@tandem/api/suggestions'

export interface SuggestionRecord extends SuggestionView {
  /** the base with every accepted part of this suggestion applied (equals `base` until one is) */
  applied: string
  /** bumped by every change of the record: the compare of compare-and-set */
  rev: number
}
