// `destroy()` releases everything `openDocument` made: a Node program that opens a document, edits
// it and destroys it exits by itself (the provider's awareness kept a 3 s interval alive before).
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { seedDemoDatabase } from '../../src/demo/database.js'
import { seedDemo } from '../../src/demo/world.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let apiKey: string

beforeAll(async () => {
  h = await startTandem()
  apiKey = (await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))).apiKey
}, 60_000)
afterAll(() => h.close())

it('a program that opens a document and destroys it exits by itself', async () => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions', 'tandem-source', 'test/client/open-and-destroy.ts'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        TANDEM_API_URL: `http://127.0.0.1:${h.server.apiPort}`,
        TANDEM_API_KEY: apiKey,
        TANDEM_ASSET: 'demo-welcome',
      },
    },
  )
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c))
  child.stderr.on('data', (c: Buffer) => (out += c))
  // Destroyed is printed first; from then on the process has nothing left to do but exit.
  const destroyedAt = new Promise<number>((resolve) =>
    child.stdout.on('data', () => out.includes('destroyed') && resolve(Date.now())),
  )
  const exit = await new Promise<{ code: number | null; lingered: boolean }>((resolve) => {
    let lingered = false
    const guard = setTimeout(() => {
      lingered = true
      child.kill('SIGKILL')
    }, 20_000)
    child.once('exit', (code) => {
      clearTimeout(guard)
      resolve({ code, lingered })
    })
  })
  expect(exit.lingered, `still running 20 s after start:\n${out}`).toBe(false)
  expect(exit.code, out).toBe(0)
  expect(out).toContain('destroyed')
  expect(Date.now() - (await destroyedAt)).toBeLessThan(5_000)
})
