// Shutdown's last write: every room flushed, but a store that keeps failing must not hang the
// process forever. One timer for all rooms (not one each); the documents that could not be
// written in time are named in the log.
import type { Logger } from '../infra/log.js'
import type { Room } from './room/room.js'

export async function flushWithin(rooms: readonly Room[], ms: number, log: Logger): Promise<void> {
  const unwritten = new Set(rooms)
  let timer: NodeJS.Timeout | undefined
  const gaveUp = new Promise<void>((res) => (timer = setTimeout(res, ms)))
  const flushes = rooms.map((r) =>
    r.flushed().then(
      () => unwritten.delete(r),
      (err: unknown) => {
        unwritten.delete(r)
        log.error({ err, docId: r.docId }, 'flush on shutdown failed')
      },
    ),
  )
  await Promise.race([Promise.all(flushes), gaveUp])
  clearTimeout(timer)
  for (const r of unwritten) log.error({ docId: r.docId }, 'shutdown: updates could not be written in time')
}
