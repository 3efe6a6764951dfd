// The `tandem` command: the only module that reads process.argv and process.env.
import { COMMAND_USAGE, wantsHelp } from './cli/args.js'
import {
  commandHelp,
  settingsHelpText,
  STORAGE_SETTINGS,
  unknownCommand,
  unknownOptionHint,
  USAGE,
  wantsSettings,
} from './cli/help.js'
import { ConfigError } from './infra/config.js'

let current: string | undefined

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command && command in COMMAND_USAGE) {
    current = command
    if (wantsSettings(rest)) {
      process.stdout.write(settingsHelpText(command))
      return 0
    }
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
      const config = loadConfig(
        STORAGE_SETTINGS.flatMap((f) => (values.has(f) ? [`--${f}`, values.get(f)!] : [])),
        process.env,
      )
      return (await import('./cli/admin.js')).runAdmin(others, config)
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE)
      return command === undefined ? 2 : 0
    default:
      process.stderr.write(unknownCommand(command))
      return 2
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    // A bad flag or setting: the error (with the flag it was probably meant to be), then that command's usage.
    if (err instanceof ConfigError)
      process.stderr.write(
        `tandem: configuration error: ${err.message}${unknownOptionHint(err.message, current)}\n${current ? `${COMMAND_USAGE[current]}\n(tandem ${current} --help-settings lists the settings)\n` : ''}`,
      )
    else process.stderr.write(`tandem: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exitCode = 1
  },
)
