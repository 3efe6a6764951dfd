// `tandem keys rotate|list [--data-dir DIR]`: a new signing key for the data dir; the previous
// keys stay for verification. A running server picks it up on SIGHUP.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { KEYS_FILE, loadKeyRing, rotateKeys } from '../auth/keys.js'
import { loadConfig } from '../infra/config.js'

export async function runKeys(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [verb, ...rest] = argv
  const config = loadConfig(rest, env)
  if (config.signingKeys) {
    process.stderr.write('tandem keys: keys come from --signing-keys; rotate them in that file\n')
    return 2
  }
  await loadKeyRing(config.dataDir, '') // creates the first key if there is none yet
  if (verb === 'rotate') {
    process.stdout.write((await rotateKeys(config.dataDir)) + '\n')
    return 0
  }
  if (verb === 'list') {
    const { keys } = JSON.parse(await readFile(join(config.dataDir, KEYS_FILE), 'utf8')) as { keys: { kid: string }[] }
    keys.forEach((k, i) => process.stdout.write(`${k.kid}${i === 0 ? ' (signing)' : ''}\n`))
    return 0
  }
  process.stderr.write('usage: tandem keys rotate|list [--data-dir DIR]\n')
  return 2
}
