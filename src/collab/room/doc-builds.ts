// Transient Y.Docs: a room holds its document encoded, and builds a live one only for calls that
// need content (REST JSON views, history, compaction). Each costs about 14 times the encoded size
// while it lives, so only a few are built at once; the rest wait their turn.
import * as Y from 'yjs'
import { foldParts } from './collect.js'

export class DocBuilds {
  private running = 0
  private readonly waiting: (() => void)[] = []
  /** encoded bytes of the documents being built or used now (the memory budget counts them, times 14) */
  bytesInUse = 0
  /** encoded bytes the calls waiting for a turn already hold (a packed history log, a read state): counted once */
  bytesWaiting = 0

  constructor(private readonly concurrency: number) {}

  /**
   * Runs `use`, which builds a Y.Doc from `bytes` encoded bytes somewhere, in its turn and counted;
   * `held`: bytes the caller holds for it already, counted while it waits.
   */
  async bounded<T>(bytes: number, use: () => Promise<T>, held = 0): Promise<T> {
    this.bytesWaiting += held
    await this.turn()
    this.bytesWaiting -= held
    this.bytesInUse += bytes
    try {
      return await use()
    } finally {
      this.bytesInUse -= bytes
      this.done()
    }
  }

  /** Runs `use` with a Y.Doc built from `state`, destroyed after. */
  async with<T>(state: () => Uint8Array, use: (doc: Y.Doc) => T | Promise<T>): Promise<T> {
    await this.turn()
    const update = state() // read when our turn comes: what was accepted while we waited is in it
    const doc = new Y.Doc()
    this.bytesInUse += update.length
    try {
      Y.applyUpdate(doc, update)
      return await use(doc)
    } finally {
      this.bytesInUse -= update.length
      doc.destroy()
      this.done()
    }
  }

  /**
   * The document's parts folded into one update, with its garbage collected or merged as they are
   * (collect.ts), queued as any other build. A merge holds about 4 times its bytes, a Y.Doc 14:
   * a merge counts as a quarter of a build of its size.
   */
  fold(parts: Uint8Array[], collect: boolean, stateVector?: Uint8Array): Promise<Uint8Array> {
    let bytes = 0
    for (const p of parts) bytes += p.length
    return this.bounded(collect ? bytes : Math.ceil(bytes / 4), () => foldParts({ parts, collect, stateVector }))
  }

  private async turn(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++
      return
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve))
  }

  private done(): void {
    const next = this.waiting.shift()
    if (next)
      next() // the slot passes on
    else this.running--
  }
}
