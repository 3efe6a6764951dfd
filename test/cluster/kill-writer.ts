// A writer node in a child process for test/cluster/kill.test.ts: edits, commits with store-assigned
// seqs on PostgreSQL, publishes, and prints "ack <token>" once the cycle is acknowledged (published).
import { pino } from 'pino'
import * as Y from 'yjs'
import { DocBus } from '../../src/cluster/bus.js'
import { createPgPool } from '../../src/pg/pool.js'
import { appendAssigningSeqs } from '../../src/storage/postgres/assign-seqs.js'
const [pgUrl, redisUrl, docId, name] = process.argv.slice(2) as [string, string, string, string]
const pool = createPgPool({ url: pgUrl, schema: 'tandem', poolSize: 2 })
const bus = await DocBus.connect(redisUrl, { nodeId: name, log: pino({ level: 'silent' }) })
const doc = new Y.Doc()
process.stdout.write('ready\n')
for (let i = 0; ; i++) {
  const token = `${name}${i};`
  const sv = Y.encodeStateVector(doc)
  doc.getText('t').insert(0, token)
  const update = Y.encodeStateAsUpdate(doc, sv)
  const [a] = await appendAssigningSeqs(
    pool,
    [{ docId, entries: [{ user: name, at: Date.now(), update }] }],
    `${name}:${i}`,
  )
  await bus.publish([{ docId, fromSeq: a!.firstSeq, toSeq: a!.lastSeq, update }])
  process.stdout.write(`ack ${token}\n`)
}
