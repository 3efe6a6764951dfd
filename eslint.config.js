// The linter: type-aware rules that tsc leaves out, on every TypeScript file tsc checks. A promise
// nobody awaits and nobody catches takes the process down when it rejects (Node's default for an
// unhandled rejection), so each one is awaited, caught, or marked `void` where it cannot reject.
// Formatting is Prettier's (.prettierrc.json); of the layout this checks only the line length.
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'bench/.build/**', 'test-artifacts/**', '.scratch/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // a promise where a condition or a spread wants a value (a callback may return one: listeners ignore it)
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // Prettier wraps code at 120 columns; this holds comments to it too. Strings stay whole:
      // a test's name says what it proves, a message reads as one sentence.
      'max-len': ['error', { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
)
