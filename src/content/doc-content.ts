// Content jobs (what the API shows of a document, a format read, a content write's change), run
// on a document's encoded state. Building a Y.Doc costs about 250 ms per MB of a document edited
// by several hands, all of it on one thread: documents over IN_LOOP_MAX_BYTES are handled in a
// worker thread (doc-content-worker.ts) so the rooms of the process go on meanwhile.
import * as Y from 'yjs'
import { AppError, type ErrorCode } from '../infra/errors.js'
import { IN_LOOP_MAX_BYTES, runWorker } from '../infra/worker-thread.js'
import type { TextAnchor } from '../control/comments.js'
import { anchoredText, blockTexts, renderDocText, type BlockText } from './doc-text.js'
import { fragmentToPm } from './fragment-read.js'
import { pmToMarkdown } from './markdown-out.js'
import { contentRoot } from './roots.js'
import { computeEdit, readContent, type ContentRead, type EditInput, type EditResult, type Format } from './formats.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_CONTENT_WORKER: string | undefined

const fromSources = import.meta.url.endsWith('.ts')

export interface DocContent {
  text: string
  /** per anchor asked for, the text it spans now (null: it no longer resolves) */
  anchored: (string | null)[]
}

export type ContentJob =
  | { kind: 'asset'; state: Uint8Array; anchors: readonly TextAnchor[]; format: 'text' | 'markdown' }
  | { kind: 'read'; state: Uint8Array; format: Format; root: string | null }
  | { kind: 'edit'; state: Uint8Array; input: EditInput; now?: Uint8Array }
  | { kind: 'blocks'; state: Uint8Array }

interface Answers {
  asset: DocContent
  read: ContentRead
  edit: EditResult
  blocks: BlockText[]
}

type AnswerOf<J extends ContentJob> = Answers[J['kind']]

/** What a worker posts back: the answer, or a refusal to rethrow as the same AppError. */
export type JobReply<T> = { ok: T } | { refused: { code: ErrorCode; message: string } }

/** Reads the content in this thread: its plain text, or Markdown when the content root is XML. */
function readDocContent(state: Uint8Array, anchors: readonly TextAnchor[], format: 'text' | 'markdown'): DocContent {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    const root = format === 'markdown' ? contentRoot(doc) : null
    const text = root?.kind === 'xml' ? pmToMarkdown(fragmentToPm(root.type)) : renderDocText(doc)
    return { text, anchored: anchors.map((a) => anchoredText(doc, a)) }
  } finally {
    doc.destroy()
  }
}

function withDoc<T>(state: Uint8Array, read: (doc: Y.Doc) => T): T {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    return read(doc)
  } finally {
    doc.destroy()
  }
}

export function runContentJob<J extends ContentJob>(job: J): AnswerOf<J>
export function runContentJob(job: ContentJob): Answers[ContentJob['kind']] {
  switch (job.kind) {
    case 'asset':
      return readDocContent(job.state, job.anchors, job.format)
    case 'read':
      return readContent(job.state, job.format, job.root)
    case 'edit':
      return computeEdit(job.state, job.input, job.now)
    case 'blocks':
      return withDoc(job.state, blockTexts)
  }
}

/** Runs a job, off the event loop when the document is large. */
export async function runContentJobOffLoop<J extends ContentJob>(job: J): Promise<AnswerOf<J>> {
  if (job.state.length <= IN_LOOP_MAX_BYTES) return runContentJob(job)
  const compiled =
    typeof TANDEM_BUNDLED_CONTENT_WORKER === 'string' ? TANDEM_BUNDLED_CONTENT_WORKER : './doc-content-worker.js'
  const reply = await runWorker<JobReply<AnswerOf<J>>>(
    fromSources,
    new URL('./doc-content-worker.ts', import.meta.url),
    new URL(compiled, import.meta.url),
    job,
  )
  if ('refused' in reply) throw new AppError(reply.refused.code, reply.refused.message)
  return reply.ok
}

/** Reads the content, off the event loop when the document is large. */
export function readDocContentOffLoop(
  state: Uint8Array,
  anchors: readonly TextAnchor[],
  format: 'text' | 'markdown' = 'text',
): Promise<DocContent> {
  return runContentJobOffLoop({ kind: 'asset', state, anchors, format })
}
