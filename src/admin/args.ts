// `tandem admin <noun> <verb> [ID] --opt value ...`: positional noun and verb, an optional id (the
// same as `--id ID`), `--name value` or `--name=value` options, and the flags `--json`, `--hard`,
// `--agent`.
import { ArgvError, readArgv } from '../infra/argv.js'
import { AppError } from '../infra/errors.js'

export interface AdminArgs {
  noun: string
  verb: string
  opts: Map<string, string>
}

/** Flags take no value (`--hard`, `--hard=false`); `json` is the output mode, the others options. */
const FLAGS = ['json', 'hard', 'agent']

/** Any other `--name` takes a value: each command checks the options it reads. */
function read(args: string[]) {
  try {
    return readArgv(args, { booleans: FLAGS, others: 'value', positionals: true })
  } catch (err) {
    throw err instanceof ArgvError ? new AppError('bad_request', err.message) : err
  }
}

export function parseAdminArgs(args: string[]): AdminArgs & { json: boolean } {
  const { values: opts, positionals: positional } = read(args)
  const json = opts.has('json') && opts.get('json') !== 'false'
  opts.delete('json')
  for (const flag of ['hard', 'agent']) if (opts.has(flag)) opts.set(flag, String(opts.get(flag) !== 'false'))
  if (positional.length < 2 || positional.length > 3)
    throw new AppError('bad_request', 'expected: tandem admin <noun> <verb> [ID] [--option value ...] [--json]')
  if (positional[2] !== undefined) {
    if (opts.has('id')) throw new AppError('bad_request', 'give the id once: positional or --id')
    opts.set('id', positional[2])
  }
  return { noun: positional[0]!, verb: positional[1]!, opts, json }
}

export function need(opts: Map<string, string>, name: string): string {
  const v = opts.get(name)
  if (v === undefined || v === '') throw new AppError('bad_request', `--${name} is required`)
  return v
}
