// Markdown streamed into a live document: an agent starts a stream at an address (after or before
// a block or heading, at the start or the end), sends its text in chunks as a model writes it,
// and ends it. Each chunk shows what of the text so far is settled (stream-render.ts) as real
// blocks, one targeted step from the last (stream-step.ts): a paragraph grows in place, a heading
// appears as a heading, never a raw `#`. Every step is durable before anyone sees it, attributed to
// the agent and to the stream (`stream` attribution: history and rollback take a run whole), and
// moves the agent's caret to the end of its text. The end shows all of it, so the document is
// the one a single write of the same Markdown makes. A stream left idle for the agent presence TTL,
// or cancelled, keeps what it showed, or with `atomic` removes it in one update.
//
// Streams live in the process that serves their document's room (a cluster routes a document to one node).
import { randomUUID } from 'node:crypto'
import { mergeAttributions } from '../auth/attributions.js'
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import type { ContentWritten, StreamState, StreamWhere } from '@tandem/api/content'
import { agentWho } from './presence.js'
import { lastBlockStart } from './markdown-in.js'
import { renderable } from './stream-render.js'
import type { StreamAnchor, StreamStep } from './stream-step.js'

/** Streams open at once in one process; past it a start is refused until one ends. */
const MAX_STREAMS = 1000
/** The most Markdown one stream may carry (characters). */
const MAX_STREAM_CHARS = 4 * 1024 * 1024

export interface StreamStart {
  where: StreamWhere
  atomic: boolean
  root: string | null
  /** the agents' approval mode holds it: it grows a suggestion, the document is left as it is */
  held: boolean
}

/**
 * What a stream's step writes with: a targeted write from `base` (edit-route.ts), or for a held
 * stream the suggestion `held.suggestion` made or revised (null: the first step makes it).
 */
export type StepWriter = (
  req: RestRequest,
  ctx: RestContext,
  step: StreamStep,
  base: string,
  attrs: Record<string, string>,
  root: string | null,
  held: { suggestion: string | null } | null,
) => Promise<ContentWritten & { lead?: string }>

/** What a held stream does when it is cancelled with `atomic`: its suggestion withdrawn. */
export type Withdraw = (req: RestRequest, ctx: RestContext, suggestion: string) => Promise<void>

interface Stream {
  id: string
  docKey: string
  agent: string
  anchor: string | null
  side: 'after' | 'before'
  own: string[]
  lead0: string | null
  /** a stream in place of blocks: their Markdown, which its first step replaces (then null) */
  pending: string | null
  /** and what an atomic cancel puts back */
  replaced: string | null
  root: string | null
  atomic: boolean
  /** grows the suggestion `suggestion` (made by its first step) instead of writing the document */
  held: boolean
  suggestion: string | null
  base: string
  received: string
  shown: string
  /** the last call's request and context: what an idle stream's cancel writes with */
  last: { req: RestRequest; ctx: RestContext }
  chain: Promise<unknown>
  timer: NodeJS.Timeout | null
  done: boolean
}

const docKeyOf = (req: RestRequest) => `${req.org}/${req.doc}/${req.cap.branch}`

export class Streams {
  private readonly open = new Map<string, Stream>()

  constructor(
    private readonly write: StepWriter,
    private readonly idleMs: (ctx: RestContext) => number,
    private readonly withdraw: Withdraw = async () => {},
  ) {}

  get size(): number {
    return this.open.size
  }

  /** Opens a stream beside `anchor` (resolved by the caller), from the document at `base`. */
  start(req: RestRequest, ctx: RestContext, s: StreamStart, at: StreamAnchor & { base: string }): StreamState {
    if (this.open.size >= MAX_STREAMS) throw new AppError('unavailable', 'too many open streams: end one first')
    const stream: Stream = {
      id: randomUUID(),
      docKey: docKeyOf(req),
      agent: agentWho(req.cap).key,
      anchor: at.anchor,
      side: at.side,
      own: at.replaced?.own ?? [],
      lead0: null,
      pending: at.replaced?.text ?? null,
      replaced: at.replaced?.text ?? null,
      root: s.root,
      atomic: s.atomic,
      held: s.held,
      suggestion: null,
      base: at.base,
      received: '',
      shown: '',
      last: { req, ctx },
      chain: Promise.resolve(),
      timer: null,
      done: false,
    }
    this.open.set(stream.id, stream)
    this.touch(stream)
    return this.stateOf(stream)
  }

  /** Takes a chunk; answers once what of it can be shown is durable and sent. */
  chunk(req: RestRequest, ctx: RestContext, id: string, text: string): Promise<StreamState> {
    const s = this.mine(req, id)
    if (s.received.length + text.length > MAX_STREAM_CHARS)
      throw new AppError('payload_too_large', `a stream carries at most ${MAX_STREAM_CHARS} characters`)
    s.received += text
    s.last = { req, ctx }
    this.touch(s)
    return this.queue(s, () => this.show(s, renderable(s.received, false)))
  }

  /** Shows all of the text and closes the stream. */
  end(req: RestRequest, ctx: RestContext, id: string): Promise<StreamState> {
    const s = this.mine(req, id)
    s.last = { req, ctx }
    return this.queue(s, async () => {
      const state = await this.show(s, s.received)
      this.close(s)
      return state
    })
  }

  /**
   * Takes the whole text as it arrives (one request's body) and ends the stream with its end.
   * Chunks that come while a step is written are shown together by the next one. A step refused,
   * a bad body or a sender gone stops the stream as a cancel does, and the refusal is the answer.
   */
  async pour(req: RestRequest, ctx: RestContext, id: string, texts: AsyncIterable<string>): Promise<StreamState> {
    const s = this.mine(req, id)
    let refused: unknown = null
    let last: Promise<unknown> = Promise.resolve()
    try {
      for await (const text of texts) {
        last = this.chunk(req, ctx, id, text)
        last.catch((err: unknown) => (refused ??= err))
        if (refused) break
      }
      await last.catch(() => {}) // steps run one at a time: the last settled, all are
      if (refused === null) return await this.end(req, ctx, id)
    } catch (err) {
      refused ??= err
    }
    if (!s.done) await this.stop(s).catch(() => this.close(s))
    throw refused
  }

  /** Stops the stream: what it showed stays, or (atomic) goes in one update. */
  cancel(req: RestRequest, ctx: RestContext, id: string): Promise<StreamState> {
    const s = this.mine(req, id)
    s.last = { req, ctx }
    return this.stop(s)
  }

  private stop(s: Stream): Promise<StreamState> {
    return this.queue(s, async () => {
      let state = this.stateOf(s)
      if (s.atomic && s.held && s.suggestion) await this.withdraw(s.last.req, s.last.ctx, s.suggestion)
      else if (s.atomic) state = await this.show(s, s.replaced ?? '')
      this.close(s)
      return state
    })
  }

  /** The caller's open stream `id` of this document; any other is as missing. */
  private mine(req: RestRequest, id: string): Stream {
    const s = this.open.get(id)
    if (!s || s.done || s.docKey !== docKeyOf(req) || s.agent !== agentWho(req.cap).key)
      throw new AppError('not_found', 'no such open stream in this document')
    return s
  }

  /** Runs `fn` after the stream's earlier calls: one step at a time, in the order they came. */
  private queue<T>(s: Stream, fn: () => Promise<T>): Promise<T> {
    const run = s.chain.then(fn)
    s.chain = run.catch(() => {})
    return run
  }

  /** One step from what the document shows of the stream to `render`. */
  private async show(s: Stream, render: string): Promise<StreamState> {
    if (render === s.shown) return this.stateOf(s)
    if (s.held) return this.showHeld(s, render)
    const { req, ctx } = s.last
    // What grows is the last block and what follows it: every block before it is settled
    // (stream-render.ts), so a step reads and writes only that block, whatever the stream's length.
    // The first step, one whose text joined the anchor's block, and an atomic removal take the whole.
    const from = s.own.length && render.startsWith(s.shown) && !render.includes('\r') ? lastBlockStart(s.shown) : -1
    const tail = from >= 0 && s.pending === null
    const step: StreamStep = tail
      ? {
          anchor: null,
          side: s.side,
          own: [s.own[s.own.length - 1]!],
          lead0: null,
          prev: s.shown.slice(from),
          render: render.slice(from),
        }
      : { anchor: s.anchor, side: s.side, own: s.own, lead0: s.lead0, prev: s.pending ?? s.shown, render }
    const attrs = mergeAttributions(req.cap.attr, { stream: s.id }) ?? { stream: s.id }
    const written = await this.write(req, ctx, step, s.base, attrs, s.root, null)
    if (written.base) s.base = written.base
    if (written.lead !== undefined && s.lead0 === null) s.lead0 = written.lead
    const blocks = written.changes?.[0]?.blocks
    if (blocks) s.own = tail ? [...s.own.slice(0, -1), ...blocks] : blocks.filter((b) => b !== s.anchor)
    s.shown = render
    s.pending = null
    return { ...this.stateOf(s), ...(written.changes ? { changes: written.changes } : {}) }
  }

  /**
   * A held stream's step: its whole text so far, from the document at the stream's start, as the
   * suggestion's change; the document itself is never written, so every step starts from nothing.
   */
  private async showHeld(s: Stream, render: string): Promise<StreamState> {
    const { req, ctx } = s.last
    const step: StreamStep = { anchor: s.anchor, side: s.side, own: [], lead0: null, prev: '', render }
    const attrs = mergeAttributions(req.cap.attr, { stream: s.id }) ?? { stream: s.id }
    const written = await this.write(req, ctx, step, s.base, attrs, s.root, { suggestion: s.suggestion })
    const made = written.suggestion as { id: string } | undefined
    if (made) s.suggestion = made.id // a step that changes nothing makes none
    s.shown = render
    return this.stateOf(s)
  }

  private stateOf(s: Stream): StreamState {
    return {
      stream: s.id,
      base: s.base,
      shown: s.shown.length,
      held: s.received.length - s.shown.length,
      ...(s.suggestion ? { suggestion: s.suggestion } : {}),
    }
  }

  /** An idle stream is cancelled a TTL after its last call, as if the agent had. */
  private touch(s: Stream): void {
    if (s.timer) clearTimeout(s.timer)
    s.timer = setTimeout(() => {
      s.timer = null
      if (!s.done) this.stop(s).catch(() => this.close(s))
    }, this.idleMs(s.last.ctx))
    s.timer.unref()
  }

  private close(s: Stream): void {
    s.done = true
    if (s.timer) clearTimeout(s.timer)
    s.timer = null
    this.open.delete(s.id)
  }
}
