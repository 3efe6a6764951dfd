// A suggestion: a change to a document held aside for a person to accept or reject, whole or hunk
// by hunk. The change is a Yjs update made against `base` (a content base, src/content/base.ts);
// `applied` is the base advanced by each partial accept, so the next one is computed from the
// document with what was already accepted in it.
import type { Attributes } from '../storage/doc-store.js'
import type { WordChange } from './word-changes.js'

export const STATUSES = ['open', 'accepted', 'partially_accepted', 'rejected', 'withdrawn'] as const
export type SuggestionStatus = (typeof STATUSES)[number]

export interface SuggestionRecord {
  id: string
  /** the content base the change was made from */
  base: string
  /** the base with every accepted part of this suggestion applied (equals `base` until one is) */
  applied: string
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
  /** bumped by every change of the record: the compare of compare-and-set */
  rev: number
}


export const newestFirst = (a: SuggestionRecord, b: SuggestionRecord) => b.created_at_ms - a.created_at_ms || (a.id < b.id ? 1 : -1)

/** A suggestion as the API shows it (what the server keeps for itself left out). */
export type SuggestionView = Omit<SuggestionRecord, 'applied' | 'rev'>

/** GET /suggestions/{id}: the suggestion, its hunks and the document as it would read if accepted now. */
export interface SuggestionShown {
  suggestion: SuggestionView
  /** delta: the preview is marked like a changeset (insert/delete attributions), hunks as ProseMirror JSON */
  format: 'markdown' | 'prosemirror' | 'text' | 'delta'
  /** `words`: before to after word by word (Markdown when that is the format, else the blocks' text) */
  hunks: { id: string; status: 'open' | 'accepted' | 'rejected'; before: unknown; after: unknown; words: WordChange[] }[]
  /** null once decided */
  preview: unknown
}
