// A suggestion as the collab REST `suggestions` routes answer it: a change to a document held aside
// for a person to accept or reject, whole or hunk by hunk (the server's record: src/suggestions/).
import type { Attributes } from './attributions.js'

export const STATUSES = ['open', 'accepted', 'partially_accepted', 'rejected', 'withdrawn'] as const
export type SuggestionStatus = (typeof STATUSES)[number]

/** A hunk's change word by word: runs of unchanged, deleted and inserted words (with their white space). */
export interface WordChange {
  op: 'equal' | 'delete' | 'insert'
  text: string
}

/** A suggestion as the API shows it. */
export interface SuggestionView {
  id: string
  /** the content base the change was made from */
  base: string
  /** the XML root its hunks are read from; null for another kind of root (accepted whole only) */
  root: string | null
  by: string
  attributions?: Attributes
  created_at_ms: number
  status: SuggestionStatus
  decided_by?: string
  decided_at_ms?: number
  /** hunk ids decided so far */
  accepted_hunks: string[]
  rejected_hunks: string[]
}

/** GET /suggestions/{id}: the suggestion, its hunks and the document as it would read if accepted now. */
export interface SuggestionShown {
  suggestion: SuggestionView
  /** delta: the preview is marked like a changeset (insert/delete attributions), hunks as ProseMirror JSON */
  format: 'markdown' | 'prosemirror' | 'text' | 'delta'
  /** `words`: before to after word by word (Markdown when that is the format, else the blocks' text) */
  hunks: {
    id: string
    status: 'open' | 'accepted' | 'rejected'
    before: unknown
    after: unknown
    words: WordChange[]
  }[]
  /** null once decided */
  preview: unknown
}
