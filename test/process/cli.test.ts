import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyToken } from '../../src/auth/capability.js'
import { loadKeyRing } from '../../src/auth/keys/ring.js'

const run = promisify(execFile)
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tandem-cli-'))
})
afterAll(async () => rm(dir, { recursive: true, force: true }))

const tandem = (...args: string[]) =>
  run(process.execPath, ['bin/tandem.js', ...args], { env: { ...process.env, TANDEM_DATA_DIR: dir } })

describe('tandem token', () => {
  it('prints exactly one token that the data dir keys verify', async () => {
    const { stdout, stderr } = await tandem(
      'token',
      '--org',
      'acme',
      '--doc',
      'd1',
      '--access',
      'r',
      '--sub',
      'ann@example.com',
      '--ttl',
      '600',
    )
    expect(stderr).toBe('')
    const lines = stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(1)
    const cap = await verifyToken(await loadKeyRing(dir, ''), lines[0]!)
    expect(cap).toMatchObject({ org: 'acme', doc: 'd1', acc: 'r', sub: 'ann@example.com', branch: 'main' })
  })

  it('--attr k=v (repeatable) puts custom attributions in the token; a bad key is exit code 2', async () => {
    const { stdout } = await tandem(
      'token',
      '--org',
      'acme',
      '--doc',
      'd1',
      '--sub',
      'bot@example.com',
      '--attr',
      'source=ai',
      '--attr=model=m1:v=2',
    )
    const cap = await verifyToken(await loadKeyRing(dir, ''), stdout.trim())
    expect(cap.attr).toEqual({ model: 'm1:v=2', source: 'ai' })
    await expect(
      tandem('token', '--org', 'acme', '--doc', 'd1', '--sub', 'b', '--attr', 'Source=ai'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--attr: attribution key "Source" must match/),
    })
    await expect(
      tandem('token', '--org', 'acme', '--doc', 'd1', '--sub', 'b', '--attr', 'novalue'),
    ).rejects.toMatchObject({ code: 2 })
  })

  it('refuses missing or bad arguments with exit code 2 and a message', async () => {
    await expect(tandem('token', '--org', 'acme', '--access', 'x')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--doc is required[\s\S]*--sub is required[\s\S]*--access must be r or rw/),
    })
  })

  it('reports a bad setting as a configuration error naming it', async () => {
    await expect(tandem('serve', '--collab-port', 'many')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/configuration error: --collab-port/),
    })
  })
})

describe('tandem keys', () => {
  it('rotate prints a new kid and list shows it signing, the old one kept', async () => {
    const first = (await tandem('keys', 'list')).stdout.trim().split('\n')
    const { stdout } = await tandem('keys', 'rotate')
    const kid = stdout.trim()
    const after = (await tandem('keys', 'list')).stdout.trim().split('\n')
    expect(after[0]).toBe(`${kid} (signing)`)
    expect(after[1]).toBe(first[0]!.replace(' (signing)', ''))
  })
})

describe('tandem <command> --help', () => {
  it.each(['serve', 'token', 'keys', 'migrate', 'admin', 'build-console', 'loadtest'])(
    '%s --help prints its usage and exits 0',
    async (command) => {
      const { stdout, stderr } = await tandem(command, '--help')
      expect(stderr).toBe('')
      expect(stdout).toMatch(new RegExp(`^usage: tandem ${command}\\b`))
      if (command !== 'loadtest' && command !== 'build-console')
        expect(stdout).toContain(`tandem ${command} --help-settings lists all`)
      // short: the settings are behind --help-settings (loadtest lists its own flags, one a line)
      if (command !== 'loadtest') expect(stdout.split('\n').length).toBeLessThan(command === 'admin' ? 30 : 8)
    },
  )

  it('--help-settings lists every setting a command reads', async () => {
    for (const command of ['serve', 'token']) {
      const { stdout } = await tandem(command, '--help-settings')
      expect(stdout).toMatch(/--redis-url +TANDEM_REDIS_URL/)
      expect(stdout).toMatch(/--collab-port +TANDEM_COLLAB_PORT/)
    }
    const admin = (await tandem('admin', '--help-settings')).stdout
    expect(admin).toMatch(/--postgres-url/)
    expect(admin).not.toMatch(/--redis-url/)
  })

  it('tandem --help is a short list of the commands', async () => {
    const { stdout } = await tandem('--help')
    for (const command of ['serve', 'token', 'admin', 'keys', 'migrate', 'loadtest', 'build-console'])
      expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'))
    expect(stdout.split('\n').length).toBeLessThan(20)
  })

  it("an unknown flag still fails, with the command's usage", async () => {
    await expect(tandem('serve', '--bogus')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown option --bogus\nusage: tandem serve /),
    })
  })

  it('a mistyped command, flag or setting gets a "did you mean"', async () => {
    await expect(tandem('srve')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^tandem: unknown command "srve"; did you mean serve\?/),
    })
    await expect(tandem('serve', '--colab-port', '1')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/unknown option --colab-port; did you mean --collab-port\?\nusage: tandem serve /),
    })
    // a command's own flag, not only the settings
    await expect(tandem('token', '--ogr', 'acme')).rejects.toMatchObject({
      stderr: expect.stringMatching(/unknown option --ogr; did you mean --org\?/),
    })
    await expect(tandem('loadtest', '--api-url', 'http://127.0.0.1:1', '--clinets', '3')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown flag --clinets; did you mean --clients\?/),
    })
  })
})
