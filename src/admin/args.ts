// `tandem admin <noun> <verb> [ID] --opt value ...`: positional noun and verb, an optional id (the
// same as `--id ID`), `--name value` or `--name=value` options, and the flags `--json`, `--hard`.
import { AppError } from '../infra/errors.js'

export interface AdminArgs {
  noun: string
  verb: string
  opts: Map<string, string>
}

/** Flags take no value (`--hard`, `--hard=false`); `json` is the output mode, the others options. */
const FLAGS = new Set(['json', 'hard'])

export function parseAdminArgs(args: string[]): AdminArgs & { json: boolean } {
  const positional: string[] = []
  const opts = new Map<string, string>()
  let json = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (!a.startsWith('--')) {
      positional.push(a)
      continue
    }
    const eq = a.indexOf('=')
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2)
    if (FLAGS.has(name)) {
      const on = eq > 0 ? a.slice(eq + 1) !== 'false' : true
      if (name === 'json') json = on
      else opts.set(name, String(on))
      continue
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i]
    if (value === undefined) throw new AppError('bad_request', `--${name} needs a value`)
    opts.set(name, value)
  }
  if (positional.length < 2 || positional.length > 3) throw new AppError('bad_request', 'expected: tandem admin <noun> <verb> [ID] [--option value ...] [--json]')
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
