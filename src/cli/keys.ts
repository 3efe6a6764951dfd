// `tandem keys rotate|list [--data-dir DIR | --postgres-url URL]`: a new signing key; the previous
// keys stay for verification. Data dir keys: a running server picks the new key up on SIGHUP.
// PostgreSQL keys: shared by every process, which verify the new key's tokens at once (unknown kid
// reloads) and sign with it within 30 s.
import { readFile } from 'node:fs/promises'
import { loadKeyRing, rotateKeys } from '../auth/keys/ring.js'
import { dataDirPath } from '../infra/data-dir.js'
import { ensurePgKeys, readPgKeys, rotatePgKeys } from '../auth/keys/postgres.js'
import { loadConfig, type Config } from '../infra/config.js'
import { openPgPool } from '../pg/open.js'

const USAGE = 'usage: tandem keys rotate|list [--data-dir DIR | --postgres-url URL]\n'

async function kidsOf(config: Config, verb: string): Promise<{ rotated?: string; kids: string[] }> {
  if (config.postgresUrl) {
    const pool = await openPgPool(config, 'tandem-keys')
    try {
      await ensurePgKeys(pool)
      const rotated = verb === 'rotate' ? await rotatePgKeys(pool, config.postgresSchema) : undefined
      return { ...(rotated ? { rotated } : {}), kids: (await readPgKeys(pool)).map((k) => k.kid) }
    } finally {
      await pool.end()
    }
  }
  await loadKeyRing(config.dataDir, '') // creates the first key if there is none yet
  const rotated = verb === 'rotate' ? await rotateKeys(config.dataDir) : undefined
  const { keys } = JSON.parse(await readFile(dataDirPath(config.dataDir, 'signingKeys'), 'utf8')) as {
    keys: { kid: string }[]
  }
  return { ...(rotated ? { rotated } : {}), kids: keys.map((k) => k.kid) }
}

export async function runKeys(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [verb, ...rest] = argv
  const config = loadConfig(rest, env)
  if (config.signingKeys) {
    process.stderr.write('tandem keys: keys come from --signing-keys; rotate them in that file\n')
    return 2
  }
  if (verb !== 'rotate' && verb !== 'list') {
    process.stderr.write(USAGE)
    return 2
  }
  const { rotated, kids } = await kidsOf(config, verb)
  if (rotated) process.stdout.write(rotated + '\n')
  else kids.forEach((kid, i) => process.stdout.write(`${kid}${i === 0 ? ' (signing)' : ''}\n`))
  return 0
}
