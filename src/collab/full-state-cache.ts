// A room's framed full state (sync step 2 for a client that has nothing), shared by the joins
// that overlap and by those that follow within `keepMs`: a storm of joins to a large document
// encodes it once, not once per socket. It is kept only once joins repeat (one came within
// `keepMs` of the one before, or while it was still being sent): a document opened once keeps no
// second copy (a cold start opening 1,000 documents of 100 KB held 74 MB of frames for nothing).
// It is released once no join has used it for `keepMs`, so a room that stopped receiving joins
// does not hold a copy of its document (200 rooms of 1 MB: 200 MB) for the rest of its life.

export class FullStateCache {
  private frame: Uint8Array | null = null
  /** joins sending the frame now */
  private users = 0
  private timer: NodeJS.Timeout | null = null
  /** when the last join acquired the frame (Date.now()) */
  private lastJoinAt = -Infinity
  /** joins repeat: keep the frame after the last one is sent */
  private repeating = false

  constructor(
    private readonly encode: () => Uint8Array,
    private readonly keepMs: number,
  ) {}

  /** The frame (encoded unless held); pair with `release` once it went out. */
  acquire(): Uint8Array {
    const now = Date.now()
    if (this.users > 0 || now - this.lastJoinAt <= this.keepMs) this.repeating = true
    this.lastJoinAt = now
    this.users++
    this.stopTimer()
    return (this.frame ??= this.encode())
  }

  /** The join that acquired the frame has sent it. */
  release(): void {
    if (--this.users > 0 || this.frame === null) return
    if (this.keepMs <= 0 || !this.repeating) {
      this.drop()
      return
    }
    this.timer = setTimeout(() => {
      this.timer = null
      if (this.users === 0) this.drop()
    }, this.keepMs)
    this.timer.unref()
  }

  /** The document changed: the next join encodes again (joins still sending keep their copy). */
  invalidate(): void {
    this.drop()
    this.stopTimer()
  }

  /** bytes of the frame held (the memory budget counts them) */
  get bytes(): number {
    return this.frame?.length ?? 0
  }

  /** whether a frame is held (tests, metrics) */
  get held(): boolean {
    return this.frame !== null
  }

  private drop(): void {
    this.frame = null
    this.repeating = false
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}
