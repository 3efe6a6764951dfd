import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createLogger } from '../infra/log.js'
import { createMetrics } from '../infra/metrics.js'
import { MemoryDocStore } from '../storage/memory.js'
import { GroupCommitter } from './group-commit.js'
import { DocBuilds } from './room/doc-builds.js'
import { Room } from './room/room.js'
import { LoopTransport } from './transport.js'
import { recordingSink } from '../../test/helpers/recording-sink.js'

/** One room on a committer with a sink given at construction and one added after. */
async function writeOnce() {
  const store = new MemoryDocStore()
  const log = createLogger('silent')
  const metrics = createMetrics()
  const given = recordingSink()
  const added = recordingSink()
  const committer = new GroupCommitter({ store, log, metrics, sinks: [given.sink] })
  committer.addSink(added.sink)
  const room = new Room({
    docId: 'o/sinks/main',
    store,
    committer,
    docBuilds: new DocBuilds(2),
    transport: new LoopTransport(),
    log,
    metrics,
    now: () => 1000,
    maxDocBytes: 1 << 20,
    compactThreshold: 100,
    maxBackpressureBytes: 1 << 20,
  })
  const d = new Y.Doc()
  d.getText('t').insert(0, 'x')
  await room.applyUpdate(Y.encodeStateAsUpdate(d), 'ann', null)
  const marks: string[] = []
  for await (const m of store.readMarks('test!')) marks.push(m.key)
  return { given: given.calls, added: added.calls, stored: (await store.load('o/sinks/main')).lastSeq, marks }
}

describe('group commit sinks', () => {
  it('every cycle tells its sinks, given or added, and their marks land with it', async () => {
    expect(await writeOnce()).toEqual({
      given: ['mark', 'committed'],
      added: ['mark', 'committed'],
      stored: 1,
      marks: ['test!o/sinks/main'],
    })
  })
})
