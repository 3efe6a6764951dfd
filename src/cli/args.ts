// Splits a command's own flags (--org O ...) from the settings flags handed to loadConfig.
export function takeFlags(argv: string[], own: readonly string[]): { values: Map<string, string>; rest: string[] } {
  const values = new Map<string, string>()
  const rest: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    if (m && own.includes(m[1]!)) {
      const value = m[2] ?? argv[++i]
      if (value === undefined) throw new Error(`--${m[1]} needs a value`)
      values.set(m[1]!, value)
    } else rest.push(arg)
  }
  return { values, rest }
}
