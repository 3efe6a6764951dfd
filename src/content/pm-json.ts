// ProseMirror JSON as agents send and read it (`{type: "doc", content: [...]}`), checked against
// the node and mark names Tandem knows: Tiptap StarterKit's (camelCase) and prosemirror-schema-
// basic/list's (snake_case), with tables and task lists. A name the document already holds is
// accepted too, so what an agent read from an editor's document can always be written back.
import { AppError } from '../infra/errors.js'
import { contentTooDeep, MAX_DEPTH } from './depth.js'

export interface PmMark {
  type: string
  attrs?: Record<string, unknown>
}

export interface PmNode {
  type: string
  attrs?: Record<string, unknown>
  content?: PmNode[]
  marks?: PmMark[]
  text?: string
}

/** Names a document written by each editor family stores. */
export type Vocabulary = 'tiptap' | 'basic'

/** The node names of each vocabulary, for what Markdown writes (see markdown-in.ts). */
export const NODE_NAMES = {
  tiptap: {
    bulletList: 'bulletList',
    orderedList: 'orderedList',
    listItem: 'listItem',
    codeBlock: 'codeBlock',
    hardBreak: 'hardBreak',
    horizontalRule: 'horizontalRule',
    tableRow: 'tableRow',
    tableCell: 'tableCell',
    tableHeader: 'tableHeader',
    bold: 'bold',
    italic: 'italic',
  },
  basic: {
    bulletList: 'bullet_list',
    orderedList: 'ordered_list',
    listItem: 'list_item',
    codeBlock: 'code_block',
    hardBreak: 'hard_break',
    horizontalRule: 'horizontal_rule',
    tableRow: 'table_row',
    tableCell: 'table_cell',
    tableHeader: 'table_header',
    bold: 'strong',
    italic: 'em',
  },
} as const satisfies Record<Vocabulary, Record<string, string>>

const SHARED_NODES = ['doc', 'paragraph', 'text', 'heading', 'blockquote', 'image', 'table', 'taskList', 'taskItem']
const SHARED_MARKS = ['code', 'link', 'strike', 'underline', 'highlight', 'subscript', 'superscript']

const KNOWN_NODES = new Set<string>([
  ...SHARED_NODES,
  ...Object.values(NODE_NAMES.tiptap),
  ...Object.values(NODE_NAMES.basic),
])
const KNOWN_MARKS = new Set<string>([...SHARED_MARKS, 'bold', 'italic', 'strong', 'em'])

const TIPTAP_ONLY = new Set<string>(Object.values(NODE_NAMES.tiptap))
const BASIC_ONLY = new Set<string>(Object.values(NODE_NAMES.basic))

/** Whether a document's node and mark names are prosemirror-schema-basic's (else Tiptap's, the default). */
export function vocabularyOf(names: Iterable<string>): Vocabulary {
  for (const n of names) {
    if (BASIC_ONLY.has(n)) return 'basic'
    if (TIPTAP_ONLY.has(n)) return 'tiptap'
  }
  return 'tiptap'
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Checks a ProseMirror JSON document and returns it typed. `known`: element and mark names the
 * target document already holds. Refusals are 422 naming the offending node by its path.
 */
export function checkPmDoc(input: unknown, known: ReadonlySet<string>): PmNode {
  if (!isObject(input) || input.type !== 'doc')
    throw new AppError('validation', 'content must be a ProseMirror JSON document: {"type": "doc", "content": [...]}')
  checkNode(input, 'doc', known, 0)
  return input as unknown as PmNode
}

function checkNode(n: Record<string, unknown>, path: string, known: ReadonlySet<string>, depth: number): void {
  // Text is no element in Yjs: a text-holding block at MAX_DEPTH is within the limit.
  if (depth > MAX_DEPTH && n.type !== 'text')
    throw contentTooDeep(path.length > 80 ? `${path.slice(0, 40)}...${path.slice(-36)}` : path)
  if (typeof n.type !== 'string' || n.type === '') throw new AppError('validation', `${path}: a node needs a "type"`)
  if (!KNOWN_NODES.has(n.type) && !known.has(n.type))
    throw new AppError('validation', `${path}: unknown node type ${JSON.stringify(n.type)}`)
  if (n.attrs !== undefined && !isObject(n.attrs))
    throw new AppError('validation', `${path}: "attrs" must be an object`)
  if (n.type === 'text') {
    if (typeof n.text !== 'string') throw new AppError('validation', `${path}: a text node needs a string "text"`)
    if (n.content !== undefined) throw new AppError('validation', `${path}: a text node has no "content"`)
  } else if (n.text !== undefined) {
    throw new AppError('validation', `${path}: only text nodes have "text"`)
  }
  if (n.marks !== undefined) {
    if (!Array.isArray(n.marks)) throw new AppError('validation', `${path}: "marks" must be an array`)
    n.marks.forEach((m: unknown, i) => {
      if (!isObject(m) || typeof m.type !== 'string')
        throw new AppError('validation', `${path}.marks[${i}]: a mark needs a "type"`)
      if (!KNOWN_MARKS.has(m.type) && !known.has(m.type))
        throw new AppError('validation', `${path}.marks[${i}]: unknown mark type ${JSON.stringify(m.type)}`)
      if (m.attrs !== undefined && !isObject(m.attrs))
        throw new AppError('validation', `${path}.marks[${i}]: "attrs" must be an object`)
    })
  }
  if (n.content === undefined) return
  if (!Array.isArray(n.content)) throw new AppError('validation', `${path}: "content" must be an array`)
  n.content.forEach((c: unknown, i) => {
    if (!isObject(c)) throw new AppError('validation', `${path}[${i}]: a node must be an object`)
    checkNode(c, `${path}.content[${i}]`, known, depth + 1)
  })
}
