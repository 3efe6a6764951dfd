// `tandem token --org O --doc D --access r|rw --sub USER [--ttl S] [--branch B] [--attr k=v]...`: prints one
// capability token and nothing else, signed with the configured keys: --signing-keys, else the
// database's with --postgres-url, else the data dir's.
import { attributionProblem } from '../auth/attributions.js'
import { DOC_NAME, mintToken } from '../auth/capability.js'
import { openKeyRing } from '../compose/backend.js'
import { loadConfig } from '../infra/config.js'
import { openPgPool } from '../pg/open.js'
import { takeFlags } from './args.js'

export async function runToken(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, lists, rest } = takeFlags(argv, ['org', 'doc', 'access', 'sub', 'ttl', 'branch'], ['attr'])
  const attrs = attributes(lists.get('attr') ?? [])
  const config = loadConfig(rest, env)
  const org = values.get('org')
  const doc = values.get('doc')
  const sub = values.get('sub')
  const access = values.get('access') ?? 'rw'
  const branch = values.get('branch') ?? 'main'
  const ttl = Number(values.get('ttl') ?? config.tokenTtlSec)
  const problems: string[] = []
  if (!org || !DOC_NAME.test(org)) problems.push('--org is required ([A-Za-z0-9._~-])')
  if (!doc || !DOC_NAME.test(doc)) problems.push('--doc is required ([A-Za-z0-9._~-])')
  if (!DOC_NAME.test(branch)) problems.push('--branch must match [A-Za-z0-9._~-]')
  if (!sub) problems.push('--sub is required (the user id)')
  if (access !== 'r' && access !== 'rw') problems.push('--access must be r or rw')
  if (!Number.isSafeInteger(ttl) || ttl < 1) problems.push('--ttl must be a positive number of seconds')
  const attrProblem = typeof attrs === 'string' ? attrs : attributionProblem(attrs)
  if (attrProblem) problems.push(`--attr: ${attrProblem}`)
  if (problems.length) {
    process.stderr.write(problems.map((p) => `tandem token: ${p}\n`).join(''))
    return 2
  }
  const pool = config.postgresUrl && !config.signingKeys ? await openPgPool(config, 'tandem-token') : undefined
  let keys
  try {
    keys = await openKeyRing(config, pool)
  } finally {
    await pool?.end()
  }
  const { token } = await mintToken(keys, {
    org: org!,
    doc: doc!,
    sub: sub!,
    acc: access as 'r' | 'rw',
    branch,
    attr: attrs as Record<string, string>,
    ttlSec: ttl,
  })
  process.stdout.write(token + '\n')
  return 0
}

/** `--attr key=value` (repeatable; `--attr=key=value` too): the map, or what is wrong with one of them. */
function attributes(pairs: string[]): Record<string, string> | string {
  const attrs: Record<string, string> = {}
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    if (eq < 1) return `expected key=value, got ${JSON.stringify(pair)}`
    attrs[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return attrs
}
