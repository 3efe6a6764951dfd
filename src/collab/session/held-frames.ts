// Frames that come for a document before it has joined its room: a y-websocket provider sends sync
// step 1 and awareness right after the open, a Hocuspocus provider right after its Auth, and the
// room may still be loading or the token being checked. They wait here in order, bounded in
// memory, and are handed back once the document has joined.

/** What a held frame costs besides its bytes (array slot, object header), so tiny frames count. */
const FRAME_OVERHEAD_BYTES = 64

export interface Held<T> {
  frame: T
  /** the frame's length on the wire */
  size: number
}

export class HeldFrames<T> {
  private items: Held<T>[] = []
  private bytes = 0

  /** `maxBytes`: what may wait at once, overheads included. */
  constructor(private readonly maxBytes: number) {}

  /** Holds one more frame; false (and nothing held) once the bound is passed. */
  push(frame: T, size: number): boolean {
    this.bytes += size + FRAME_OVERHEAD_BYTES
    if (this.bytes > this.maxBytes) return false
    this.items.push({ frame, size })
    return true
  }

  /** Everything held, in arrival order; the queue starts empty again. */
  take(): Held<T>[] {
    const items = this.items
    this.items = []
    this.bytes = 0
    return items
  }
}
