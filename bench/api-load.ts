// Quick load on the /api/v0 listener: collab-token minting and asset content (with and without
// comments) against the demo world, keep-alive connections, fixed concurrency and duration.
// Usage: node --import tsx bench/api-load.ts [--seconds 5] [--connections 32]
import { Agent, request } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { seedDemo } from '../src/demo/world.js'
import { loadConfig } from '../src/infra/config.js'
import { createServer } from '../src/compose/server.js'

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' } },
})
const seconds = Number(values.seconds)
const connections = Number(values.connections)

const dir = await mkdtemp(join(tmpdir(), 'tandem-api-bench-'))
const server = await createServer(
  loadConfig([], {}, { dataDir: dir, collabPort: 0, apiPort: 0, logLevel: 'silent', siteSweepDelayMs: 0 }),
)
const demo = await seedDemo(server.deps)
const agent = new Agent({ keepAlive: true, maxSockets: connections })

function once(method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.apiPort,
        method,
        path,
        agent,
        headers: { 'x-api-key': demo.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function scenario(name: string, method: string, path: string, body?: string) {
  for (let i = 0; i < 200; i++) await once(method, path, body) // warm up
  const latencies: number[] = []
  let errors = 0
  const until = performance.now() + seconds * 1000
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const t = performance.now()
        const status = await once(method, path, body)
        latencies.push(performance.now() - t)
        if (status !== 200) errors++
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(2)
  console.log(
    `${name.padEnd(34)} ${(latencies.length / seconds).toFixed(0).padStart(7)} req/s   p50 ${pct(0.5)} ms   p99 ${pct(0.99)} ms   non-200 ${errors}`,
  )
}

console.log(`${connections} connections, ${seconds} s each, node ${process.version}`)
await scenario('POST collab-token (edit)', 'POST', '/api/v0/assets/demo-welcome/collab-token', '{"access":"edit"}')
await scenario('GET asset content', 'GET', '/api/v0/tools/asset/content?asset_id=demo-welcome')
await scenario(
  'GET asset content + comments',
  'GET',
  '/api/v0/tools/asset/content?asset_id=demo-welcome&include_comments=true',
)
await scenario('GET tool registry', 'GET', `/api/v0/workspaces/${demo.workspaceId}/tool-registry`)
agent.destroy()
await server.close()
await rm(dir, { recursive: true, force: true })
