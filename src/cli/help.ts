// What `tandem` prints to help: a short list of commands, a short usage per command, the full
// settings table only on `--help-settings`, and "did you mean" for a mistyped command or flag.
import { COMMAND_USAGE } from './args.js'
import { SETTING_FLAGS, settingsHelp } from '../infra/config.js'
import { didYouMean } from '../infra/did-you-mean.js'

export const USAGE = `usage: tandem <command> [flags]

  serve           runs the collab and api listeners (npm start runs this)
  token           prints one capability token (operator tool)
  admin           creates and lists users, keys, workspaces, assets, grants, ...
  keys            rotates or lists the signing keys
  migrate         copies a LevelDB data dir into PostgreSQL, then verifies it
  loadtest        load on a running deployment (one node or a cluster)
  build-console   bundles web/ into dist/console/
  mcp             an MCP server on stdin/stdout for agent runtimes (relays to /mcp)

tandem <command> --help            that command's flags
tandem <command> --help-settings   every setting it reads (flag, environment variable, default)
`

/** The settings `tandem admin` reads; everything else on its line belongs to the admin command. */
export const STORAGE_SETTINGS = ['data-dir', 'postgres-url', 'postgres-schema', 'postgres-pool-size']

const settingsOf = (command: string): readonly string[] | undefined =>
  command === 'admin' ? STORAGE_SETTINGS : undefined
const readsSettings = (command: string) => command !== 'build-console' && command !== 'mcp'

/** `tandem <command> --help`: its usage (admin: its nouns too) and where the settings are listed. */
export async function commandHelp(command: string): Promise<string> {
  const nouns = command === 'admin' ? `\n${(await import('../admin/commands.js')).adminUsage()}` : ''
  const count = settingsOf(command)?.length ?? SETTING_FLAGS.length
  const settings = readsSettings(command)
    ? `\n\nsettings: tandem ${command} --help-settings lists all ${count} (flag, environment variable, meaning, default)`
    : ''
  return `${COMMAND_USAGE[command]}${nouns}${settings}\n`
}

/** `tandem <command> --help-settings`: every setting that command reads. */
export function settingsHelpText(command: string): string {
  if (!readsSettings(command)) return `tandem ${command} reads no settings\n`
  return `settings of tandem ${command} (flag, environment variable, meaning, default); flags beat the environment:\n${settingsHelp(settingsOf(command))}\n`
}

export function unknownCommand(command: string): string {
  return `tandem: unknown command ${JSON.stringify(command)}${didYouMean(command, Object.keys(COMMAND_USAGE).concat('loadtest'))}\n\n${USAGE}`
}

/** Flags a command's usage line names, and the settings it reads. */
function flagsOf(command: string): string[] {
  const own = [...(COMMAND_USAGE[command] ?? '').matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!)
  return [...new Set([...own, ...(settingsOf(command) ?? SETTING_FLAGS)])]
}

/** "; did you mean --collab-port?" for a configuration error about an unknown option, else "". */
export function unknownOptionHint(message: string, command: string | undefined): string {
  const m = /^unknown option --(\S+)$/.exec(message)
  return m && command ? didYouMean(m[1]!, flagsOf(command), (f) => `--${f}`) : ''
}

/** `--help-settings` anywhere among a command's arguments. */
export const wantsSettings = (argv: readonly string[]): boolean => argv.includes('--help-settings')
