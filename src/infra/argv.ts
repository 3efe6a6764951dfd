// Command-line flags, read the same way by every command (serve's settings, token, migrate, admin,
// loadtest, and the scripts beside src/): `node:util` parseArgs splits the arguments; what a
// command does with a flag it did not declare, or with a bare argument, is the one choice it makes
// here. Each command words its own errors from ArgvError (its tests and exit codes rely on them).
import { parseArgs } from 'node:util'

export interface ArgvSpec {
  /** flags without a value: bare reads 'true', `--flag=false` reads 'false' */
  booleans?: readonly string[]
  /** flags with a value: `--name value` (whatever the value looks like) or `--name=value` */
  strings?: readonly string[]
  /** flags with a value that may be given again: every value, in order, in `lists` */
  repeatable?: readonly string[]
  /**
   * A flag not declared: 'refuse' it; it takes a 'value' as a declared one does; it is left with
   * everything else in `rest`, in order (the command hands those on); or it takes the next
   * argument unless that is a flag, else reads 'true' ('value-or-true').
   */
  others: 'refuse' | 'value' | 'rest' | 'value-or-true'
  /** bare arguments are kept in `positionals` (default: refused) */
  positionals?: boolean
  /** a value given as the next argument may not start with `--` (`--rate --quiet`: --rate lacks one) */
  plainValues?: boolean
}

export interface Argv {
  values: Map<string, string>
  lists: Map<string, string[]>
  positionals: string[]
  rest: string[]
}

export class ArgvError extends Error {
  constructor(
    /** a flag without its value, a flag not declared, a bare argument where none is taken */
    readonly kind: 'needs-value' | 'unknown' | 'unexpected',
    /** the flag's name (without `--`), or the bare argument */
    readonly arg: string,
  ) {
    super(
      kind === 'unexpected'
        ? `unexpected argument ${JSON.stringify(arg)}`
        : kind === 'unknown'
          ? `unknown flag --${arg}`
          : `--${arg} needs a value`,
    )
  }
}

export function readArgv(argv: readonly string[], spec: ArgvSpec): Argv {
  const options: Record<string, { type: 'string' | 'boolean' }> = {}
  for (const name of spec.booleans ?? []) options[name] = { type: 'boolean' }
  for (const name of [...(spec.strings ?? []), ...(spec.repeatable ?? [])]) options[name] = { type: 'string' }
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true })
  const out: Argv = { values: new Map(), lists: new Map(), positionals: [], rest: [] }
  const repeatable = new Set(spec.repeatable)
  /** argument indexes already read: an undeclared flag's value, each short group once */
  const used = new Set<number>()
  const bare = (arg: string) => {
    if (spec.others === 'rest') out.rest.push(arg)
    else if (spec.positionals) out.positionals.push(arg)
    else throw new ArgvError('unexpected', arg)
  }
  for (const t of tokens) {
    if (used.has(t.index)) continue
    used.add(t.index)
    // `-x`, `-1` and `--` are no flags of any command: arguments like any other
    if (t.kind !== 'option' || !t.rawName.startsWith('--')) {
      bare(argv[t.index]!)
      continue
    }
    const declared = options[t.name]?.type
    if (declared === 'boolean') out.values.set(t.name, t.value ?? 'true')
    else if (declared === 'string') {
      if (t.value === undefined || (spec.plainValues && !t.inlineValue && t.value.startsWith('--')))
        throw new ArgvError('needs-value', t.name)
      if (repeatable.has(t.name)) out.lists.set(t.name, [...(out.lists.get(t.name) ?? []), t.value])
      else out.values.set(t.name, t.value)
    } else if (spec.others === 'refuse') throw new ArgvError('unknown', t.name)
    else if (spec.others === 'rest') out.rest.push(argv[t.index]!)
    else if (t.inlineValue) out.values.set(t.name, t.value!)
    else {
      const next = argv[t.index + 1]
      const takesNext = next !== undefined && (spec.others === 'value' || !next.startsWith('--'))
      if (takesNext) {
        out.values.set(t.name, next)
        used.add(t.index + 1)
      } else if (spec.others === 'value') throw new ArgvError('needs-value', t.name)
      else out.values.set(t.name, 'true')
    }
  }
  return out
}
