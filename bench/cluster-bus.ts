// The document bus alone, on loopback: a redis-server started here, three DocBus nodes in this
// process (one clock for send and receive). Per write cycle: the publish round trip (until Redis
// accepted the cycle: what an acknowledgement waits for beyond the commit) and the cross-node
// delivery (publish call on node A until another node's handler ran). Cycles of 1 and of 20
// documents; sequential, so it measures latency, not throughput.
//   node --import tsx bench/cluster-bus.ts [--cycles 2000]
import { pino } from 'pino'
import { DocBus } from '../src/cluster/bus.js'
import { startRedis } from '../test/helpers/redis.js'
import { Samples } from '../src/loadtest/stats.js'
import { num, parseFlags } from './lib/args.js'

const cycles = num(parseFlags(process.argv.slice(2)), 'cycles') ?? 2000
const redis = await startRedis()
const log = pino({ level: 'silent' })
const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => DocBus.connect(redis.url, { nodeId: id, log })))

async function run(docsPerCycle: number, n: number) {
  const docs = Array.from({ length: docsPerCycle }, (_, i) => `bench/d${docsPerCycle}-${i}/main`)
  const publish = new Samples()
  const delivery = new Samples()
  let waiting: { left: number; t0: number; done: () => void } | null = null
  const seen = () => {
    if (!waiting) return
    if (--waiting.left === 0) {
      delivery.add(performance.now() - waiting.t0)
      waiting.done()
    }
  }
  for (const bus of [a!, b!, c!]) {
    for (const d of docs) {
      await bus.follow(d, 0, {
        onUpdate: bus === a ? () => undefined : seen,
        onAwareness: () => undefined,
        resync: async (from) => from - 1,
      })
    }
  }
  const update = new Uint8Array(64).fill(7) // a typical small keystroke-sized update
  for (let i = 1; i <= n; i++) {
    const arrived = new Promise<void>((done) => (waiting = { left: 2 * docsPerCycle, t0: performance.now(), done }))
    const t0 = performance.now()
    await a!.publish(docs.map((docId) => ({ docId, fromSeq: i, toSeq: i, update })))
    publish.add(performance.now() - t0)
    await arrived
  }
  for (const bus of [a!, b!, c!]) for (const d of docs) await bus.unfollow(d)
  return { docsPerCycle, cycles: n, publishMs: publish.summary(), deliveryMs: delivery.summary() }
}

const results = [await run(1, 200), await run(1, cycles), await run(20, Math.ceil(cycles / 2))].slice(1)
console.log(JSON.stringify(results, null, 2))
await Promise.all([a!, b!, c!].map((x) => x.close()))
await redis.close()
