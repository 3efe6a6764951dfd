// `tandem admin <noun> <verb> --opt value ...`: positional noun and verb, `--name value` or
// `--name=value` options, and `--json`.
import { AppError } from '../infra/errors.js'

export interface AdminArgs {
  noun: string
  verb: string
  opts: Map<string, string>
}

const BOOLEAN = new Set(['json'])

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
    if (BOOLEAN.has(name)) {
      json = eq > 0 ? a.slice(eq + 1) !== 'false' : true
      continue
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i]
    if (value === undefined) throw new AppError('bad_request', `--${name} needs a value`)
    opts.set(name, value)
  }
  if (positional.length !== 2) throw new AppError('bad_request', 'expected: tandem admin <noun> <verb> [--option value ...] [--json]')
  return { noun: positional[0]!, verb: positional[1]!, opts, json }
}

export function need(opts: Map<string, string>, name: string): string {
  const v = opts.get(name)
  if (v === undefined || v === '') throw new AppError('bad_request', `--${name} is required`)
  return v
}
