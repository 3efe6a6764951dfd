// The package's build, into dist/: index.js, ESM, with Yjs, y-websocket, y-protocols and lib0 left
// as imports (an app keeps one copy of Yjs) and the pure wire-protocol modules it uses
// (@tandem/protocol: close codes, the auth message) inlined; and its declarations. Those come from
// the sources (tsc), except types.d.ts: the request and response types are @tandem/api's zod
// schemas (src/types.ts imports them), and the published package names neither that private
// package nor zod, so every alias there is written out in full from the compiler's own view of it.
// The declarations are then compiled alone, with the DOM library and no Node types: a path out of
// dist/, a server type or a Node-only type in the client's surface fails the build.
//
// `npm run build -w @tandem/client` (`node --import tsx build.ts [--out-dir DIR]` here; npm run
// build and npm pack run it).
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import ts from 'typescript'

const CLIENT = fileURLToPath(new URL('.', import.meta.url))
/** where tsc's declarations are rooted (tsconfig.json: rootDir ../..), for paths in its messages */
const ROOT = join(CLIENT, '../..')
/** Imported by the client and resolved by the app, never bundled: the package's dependencies. */
const CLIENT_EXTERNAL = ['yjs', 'y-websocket', 'y-protocols', 'lib0']

async function buildClient(outDir = join(CLIENT, 'dist')): Promise<void> {
  await rm(outDir, { recursive: true, force: true })
  await build({
    entryPoints: [join(CLIENT, 'src/index.ts')],
    outfile: join(outDir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: CLIENT_EXTERNAL.flatMap((p) => [p, `${p}/*`]),
    logLevel: 'warning',
  })
  await declarations(outDir)
}

/** tsc's declarations of the client's own modules, types.d.ts written out, checked alone. */
async function declarations(outDir: string): Promise<void> {
  const scratch = join(outDir, '.declarations')
  const config = ts.getParsedCommandLineOfConfigFile(
    join(CLIENT, 'tsconfig.json'),
    { outDir: scratch },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
  )!
  const program = ts.createProgram(config.fileNames, config.options)
  const emitted = program.emit()
  fail([...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics])
  const own = join(scratch, 'packages/client/src')
  for (const f of await readdir(own))
    if (f.endsWith('.d.ts') && !f.endsWith('.test.d.ts')) await cp(join(own, f), join(outDir, f))
  await rm(scratch, { recursive: true, force: true })
  await writeFile(join(outDir, 'types.d.ts'), writtenOut(program, join(CLIENT, 'src/types.ts')))
  await checkAlone(outDir)
}

function fail(diagnostics: readonly ts.Diagnostic[]): void {
  if (!diagnostics.length) return
  const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }
  throw new Error(`@tandem/client declarations:\n${ts.formatDiagnostics(diagnostics, host)}`)
}

/** Every exported type alias of `file`, its type printed structurally (no name from elsewhere). */
function writtenOut(program: ts.Program, file: string): string {
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)!
  const printUnion = (types: readonly ts.Type[], depth: number): string => {
    const parts = [...new Set(types.map((t) => print(t, depth)))]
    const bool = parts.includes('true') && parts.includes('false')
    const merged = bool ? [...parts.filter((p) => p !== 'true' && p !== 'false'), 'boolean'] : parts
    return merged.map((p) => (p.includes(' => ') ? `(${p})` : p)).join(' | ')
  }
  const print = (t: ts.Type, depth: number): string => {
    if (depth > 24) throw new Error(`${file}: a type nests deeper than 24 levels (recursive?)`)
    if (t.isUnion()) return printUnion(t.types, depth + 1)
    if (t.isIntersection()) return t.types.map((p) => `(${print(p, depth + 1)})`).join(' & ')
    if (!(t.flags & ts.TypeFlags.Object)) return checker.typeToString(t)
    if (checker.isTupleType(t))
      return `[${checker
        .getTypeArguments(t as ts.TypeReference)
        .map((a) => print(a, depth + 1))
        .join(', ')}]`
    if (checker.isArrayType(t)) {
      const item = print(checker.getTypeArguments(t as ts.TypeReference)[0]!, depth + 1)
      const readonly = t.getSymbol()?.getName() === 'ReadonlyArray' ? 'readonly ' : ''
      return `${readonly}${/^[\w$.'"]+$/.test(item) ? item : `(${item})`}[]`
    }
    if (t.getCallSignatures().length)
      throw new Error(`${file}: a function type in the schema types: ${checker.typeToString(t)}`)
    const members = checker.getPropertiesOfType(t).map((p) => {
      const optional = (p.flags & ts.SymbolFlags.Optional) !== 0
      const type = checker.getTypeOfSymbol(p)
      const value =
        optional && type.isUnion()
          ? printUnion(
              type.types.filter((u) => !(u.flags & ts.TypeFlags.Undefined)),
              depth + 1,
            )
          : print(type, depth + 1)
      const name = /^[A-Za-z_$][\w$]*$/.test(p.name) ? p.name : JSON.stringify(p.name)
      return `${name}${optional ? '?' : ''}: ${value}`
    })
    for (const info of checker.getIndexInfosOfType(t))
      members.push(`[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, depth + 1)}`)
    return members.length ? `{ ${members.join('; ')} }` : '{}'
  }
  const aliases = source.statements.filter(
    (s): s is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(s) && !!s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword),
  )
  const text = source.getFullText()
  const out = aliases.map((a) => {
    const comments = (ts.getLeadingCommentRanges(text, a.getFullStart()) ?? [])
      .map((r) => text.slice(r.pos, r.end))
      .filter((c) => c.startsWith('/**'))
    return `${comments.map((c) => `${c}\n`).join('')}export type ${a.name.text} = ${print(checker.getTypeAtLocation(a.name), 0)}\n`
  })
  return `// Generated by the package's build (build.ts) from @tandem/api's zod schemas (src/types.ts): do not edit.\n${out.join('')}`
}

/** The declarations compile on their own, referring to nothing but themselves and the dependencies. */
async function checkAlone(outDir: string): Promise<void> {
  const files = (await readdir(outDir)).filter((f) => f.endsWith('.d.ts')).map((f) => join(outDir, f))
  for (const f of files) {
    for (const { fileName: spec } of ts.preProcessFile(await readFile(f, 'utf8'), true, true).importedFiles) {
      if (
        spec.startsWith('.')
          ? !/^\.\/[\w-]+\.js$/.test(spec)
          : !CLIENT_EXTERNAL.some((p) => spec === p || spec.startsWith(`${p}/`))
      ) {
        throw new Error(`${f}: refers to ${spec}, outside the package and its dependencies`)
      }
    }
  }
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    skipLibCheck: false,
  })
  fail(ts.getPreEmitDiagnostics(program).filter((d) => !d.file || d.file.fileName.startsWith(outDir)))
}

const outDir = parseArgs({ options: { 'out-dir': { type: 'string' } } }).values['out-dir']
await buildClient(outDir)
process.stdout.write(`@tandem/client built into ${outDir ?? join(CLIENT, 'dist')}\n`)
