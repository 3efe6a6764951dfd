// Command-line flags of the bench entry points: `--name value`, `--name=value`, bare `--flag`
// (read 'true'), on the one reader every command uses (src/infra/argv.ts).
import { readArgv } from '../../src/infra/argv.js'

export type Flags = Map<string, string>

export function parseFlags(argv: string[]): Flags {
  return readArgv(argv, { others: 'value-or-true' }).values
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
  return v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
}

/** A progress line on stdout, stamped with the wall-clock time. */
export function log(line: string): void {
  process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`)
}
