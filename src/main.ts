// The `tandem` command: the only module that reads process.argv and process.env.
import { COMMAND_USAGE, wantsHelp } from './cli/args.js'
import { ConfigError, settingsHelp } from './infra/config.js'

const USAGE = `usage:
  tandem serve [--data-dir DIR] [--host H] [--collab-port N] [--api-port N] [--demo] [settings...]
  tandem token --org O --doc D --access r|rw --sub USER [--ttl SECONDS] [--branch B] [--data-dir DIR | --postgres-url URL]
  tandem admin <noun> <verb> [...] [--json] [--data-dir DIR | --postgres-url URL]
  tandem keys rotate|list [--data-dir DIR | --postgres-url URL]   (data dir keys: a running server reloads on SIGHUP)
  tandem migrate --from-data-dir DIR --postgres-url URL   (copies a LevelDB data dir into PostgreSQL, then verifies)
  tandem build-console                       (bundles web/ into dist/console/; serve also does it when stale)
  tandem mcp --api-url URL [--workspace ID]  (MCP over stdio for agent runtimes; TANDEM_API_KEY in the environment)
  tandem loadtest --ws-url URL --signing-keys FILE | --api-url URL --api-key KEY --assets ID,...  [--scenario S] ...
                                             (load on a running deployment; --help lists every flag)

settings (flag, environment variable, meaning):
${settingsHelp()}
`

/** One command's usage and the settings it reads (admin: its nouns and the storage settings). */
async function commandHelp(command: string): Promise<string> {
  const settings = command === 'admin' ? settingsHelp(STORAGE_SETTINGS) : command === 'build-console' || command === 'mcp' ? '' : settingsHelp()
  const nouns = command === 'admin' ? `\n${(await import('./admin/commands.js')).adminUsage()}` : ''
  return `${COMMAND_USAGE[command]}${nouns}\n${settings ? `\nsettings (flag, environment variable, meaning):\n${settings}\n` : ''}`
}

/** The settings `tandem admin` reads; everything else on its line belongs to the admin command. */
const STORAGE_SETTINGS = ['data-dir', 'postgres-url', 'postgres-schema', 'postgres-pool-size']

let current: string | undefined

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command && command in COMMAND_USAGE) {
    current = command
    if (wantsHelp(rest)) {
      process.stdout.write(await commandHelp(command))
      return 0
    }
  }
  switch (command) {
    case 'serve':
      return (await import('./cli/serve.js')).runServe(rest, process.env)
    case 'token':
      return (await import('./cli/token.js')).runToken(rest, process.env)
    case 'keys':
      return (await import('./cli/keys.js')).runKeys(rest, process.env)
    case 'migrate':
      return (await import('./cli/migrate.js')).runMigrate(rest, process.env)
    case 'loadtest':
      return (await import('./cli/loadtest.js')).runLoadtest(rest, process.env)
    case 'build-console':
      return (await import('./cli/build-console.js')).runBuildConsole()
    case 'mcp':
      return (await import('./cli/mcp.js')).runMcp(rest, process.env)
    case 'admin': {
      const { loadConfig } = await import('./infra/config.js')
      const { takeFlags } = await import('./cli/args.js')
      // Storage settings are read here; everything else belongs to the admin command.
      const { values, rest: others } = takeFlags(rest, STORAGE_SETTINGS)
      const config = loadConfig(STORAGE_SETTINGS.flatMap((f) => (values.has(f) ? [`--${f}`, values.get(f)!] : [])), process.env)
      return (await import('./cli/admin.js')).runAdmin(others, config)
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE)
      return command === undefined ? 2 : 0
    default:
      process.stderr.write(`tandem: unknown command ${JSON.stringify(command)}\n${USAGE}`)
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    // A bad flag or setting: the error, then that command's usage.
    if (err instanceof ConfigError) process.stderr.write(`tandem: configuration error: ${err.message}\n${current ? `${COMMAND_USAGE[current]}\n(tandem ${current} --help lists the settings)\n` : ''}`)
    else process.stderr.write(`tandem: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
