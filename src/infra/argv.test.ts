import { describe, expect, it } from 'vitest'
import { ArgvError, readArgv } from './argv.js'

const read = (argv: string[], spec: Parameters<typeof readArgv>[1]) => {
  const { values, positionals, rest } = readArgv(argv, spec)
  return { values: Object.fromEntries(values), positionals, rest }
}
const lists = (argv: string[], spec: Parameters<typeof readArgv>[1]) => Object.fromEntries(readArgv(argv, spec).lists)
const failure = (argv: string[], spec: Parameters<typeof readArgv>[1]) => {
  try {
    readArgv(argv, spec)
  } catch (err) {
    return err instanceof ArgvError ? { kind: err.kind, arg: err.arg } : err
  }
  return null
}

describe('readArgv', () => {
  it('reads declared flags in both spellings; a value may look like a flag unless plainValues', () => {
    const spec = { strings: ['org', 'doc'], booleans: ['json'], others: 'refuse' } as const
    expect(read(['--org', 'acme', '--doc=d=1', '--json'], spec).values).toEqual({
      org: 'acme',
      doc: 'd=1',
      json: 'true',
    })
    expect(read(['--json=false', '--org', '--doc'], spec).values).toEqual({ json: 'false', org: '--doc' })
    expect(failure(['--org', '--doc'], { ...spec, plainValues: true })).toEqual({ kind: 'needs-value', arg: 'org' })
    expect(read(['--org=--doc'], { ...spec, plainValues: true }).values).toEqual({ org: '--doc' })
    expect(failure(['--org'], spec)).toEqual({ kind: 'needs-value', arg: 'org' })
  })

  it('refuses an undeclared flag or a bare argument unless told otherwise', () => {
    expect(failure(['--bogus'], { others: 'refuse' })).toEqual({ kind: 'unknown', arg: 'bogus' })
    expect(failure(['serve'], { others: 'refuse' })).toEqual({ kind: 'unexpected', arg: 'serve' })
    expect(failure(['-h'], { others: 'value-or-true' })).toEqual({ kind: 'unexpected', arg: '-h' })
    expect(read(['user', 'create', '-1'], { others: 'refuse', positionals: true }).positionals).toEqual([
      'user',
      'create',
      '-1',
    ])
  })

  it('others: value takes the next argument whatever it is; value-or-true only when it is no flag', () => {
    expect(
      read(['user', '--name', '--x', 'create', '--hard'], { booleans: ['hard'], others: 'value', positionals: true }),
    ).toEqual({
      values: { name: '--x', hard: 'true' },
      positionals: ['user', 'create'],
      rest: [],
    })
    expect(failure(['--name'], { others: 'value' })).toEqual({ kind: 'needs-value', arg: 'name' })
    expect(read(['--rooms', '5', '--quick', '--peers=a,b', '--repeat'], { others: 'value-or-true' }).values).toEqual({
      rooms: '5',
      quick: 'true',
      peers: 'a,b',
      repeat: 'true',
    })
  })

  it('keeps every value of a repeatable flag, in order', () => {
    expect(
      lists(['--attr', 'a=1', '--org', 'o', '--attr=b=2'], {
        strings: ['org'],
        repeatable: ['attr'],
        others: 'refuse',
      }),
    ).toEqual({ attr: ['a=1', 'b=2'] })
    expect(failure(['--attr'], { repeatable: ['attr'], others: 'rest' })).toEqual({ kind: 'needs-value', arg: 'attr' })
  })

  it('others: rest leaves everything not declared in order, flags with their values', () => {
    expect(
      read(['--data-dir', 'd', '--org=o', '--fsync', 'false', '-v', 'x'], { strings: ['org'], others: 'rest' }),
    ).toEqual({
      values: { org: 'o' },
      positionals: [],
      rest: ['--data-dir', 'd', '--fsync', 'false', '-v', 'x'],
    })
  })
})
