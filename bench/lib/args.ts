// Command-line flags of the bench entry points: `--name value`, `--name=value`, bare `--flag`.
export type Flags = Map<string, string>

export function parseFlags(argv: string[]): Flags {
  const flags: Flags = new Map()
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(a)}`)
    const eq = a.indexOf('=')
    if (eq > 0) {
      flags.set(a.slice(2, eq), a.slice(eq + 1))
    } else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) {
      flags.set(a.slice(2), argv[++i]!)
    } else {
      flags.set(a.slice(2), 'true')
    }
  }
  return flags
}

export function num(flags: Flags, name: string): number | undefined {
  const v = flags.get(name)
  if (v === undefined) return undefined
  const n = Number(v)
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got ${JSON.stringify(v)}`)
  return n
}

export function list(flags: Flags, name: string): string[] | undefined {
  const v = flags.get(name)
  return v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter(Boolean)
}

/** A progress line on stdout, stamped with the wall-clock time. */
export function log(line: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`)
}
