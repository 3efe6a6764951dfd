import { ArgvError, readArgv } from '../infra/argv.js'

// Splits a command's own flags (--org O ..., and `repeatable` ones given any number of times) from
// the settings flags handed to loadConfig.
export function takeFlags(
  argv: string[],
  own: readonly string[],
  repeatable: readonly string[] = [],
): { values: Map<string, string>; lists: Map<string, string[]>; rest: string[] } {
  try {
    const { values, lists, rest } = readArgv(argv, { strings: own, repeatable, others: 'rest' })
    return { values, lists, rest }
  } catch (err) {
    // the only error: one of the command's flags without its value
    throw err instanceof ArgvError ? new Error(err.message) : err
  }
}

/**
 * What `tandem <command> --help` prints above the settings (each command reads every setting
 * through loadConfig; `admin` only the storage ones). loadtest prints its own.
 */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  serve:
    'usage: tandem serve [--data-dir DIR] [--host H] [--collab-port N] [--api-port N] [--demo] [settings...]\n  runs the collab and api listeners; --postgres-url and --redis-url make it a cluster node',
  token:
    'usage: tandem token --org O --doc D --access r|rw --sub USER [--ttl SECONDS] [--branch B] [--attr k=v]... [--data-dir DIR | --postgres-url URL]\n  prints one capability token on stdout, nothing else',
  keys: 'usage: tandem keys rotate|list [--data-dir DIR | --postgres-url URL]\n  a new signing key (the previous ones still verify), or the keys; data dir keys: a running server reloads on SIGHUP',
  migrate:
    'usage: tandem migrate --from-data-dir DIR --postgres-url URL [--postgres-schema S]\n  copies a LevelDB data dir into PostgreSQL, then verifies the copy',
  admin:
    'usage: tandem admin <noun> <verb> [...] [--json] [--data-dir DIR | --postgres-url URL]\n  creates and lists control-plane records',
  'build-console': 'usage: tandem build-console\n  bundles web/ into dist/console/ (serve also does it when stale)',
  mcp: "usage: tandem mcp --api-url URL [--workspace ID]   (TANDEM_API_KEY in the environment)\n  an MCP server on stdin/stdout for agent runtimes, relaying to the server's /mcp endpoint",
}

/** `--help` or `-h` anywhere among a command's arguments. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h')
