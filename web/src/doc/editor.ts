// ProseMirror bound to the document's `default` XML fragment (the root the demo and `tandem admin
// assets create --text` write) through y-prosemirror: shared text, remote cursors from awareness,
// collaborative undo, and highlights for the text anchored comment threads point at.
import { baseKeymap, toggleMark } from 'prosemirror-commands'
import { keymap } from 'prosemirror-keymap'
import { EditorState, Plugin, PluginKey, TextSelection } from 'prosemirror-state'
import { Decoration, DecorationSet, EditorView } from 'prosemirror-view'
import {
  redo,
  relativePositionToAbsolutePosition,
  undo,
  yCursorPlugin,
  ySyncPlugin,
  ySyncPluginKey,
  yUndoPlugin,
} from 'y-prosemirror'
import type { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { h } from '../dom.js'
import { schema } from './schema.js'

export const ROOT = 'default'

export interface Anchor {
  threadId: string
  start: Y.RelativePosition
  end: Y.RelativePosition
}

const anchorsKey = new PluginKey<Anchor[]>('anchors')

/** Where an anchor lies in the editor now, or null when its text is gone. */
function anchorRange(state: EditorState, ydoc: Y.Doc, a: Anchor): { from: number; to: number } | null {
  const sync = ySyncPluginKey.getState(state) as
    { binding?: { mapping: Map<unknown, unknown> }; type: Y.XmlFragment } | undefined
  if (!sync?.binding) return null
  const from = relativePositionToAbsolutePosition(ydoc, sync.type, a.start, sync.binding.mapping as never)
  const to = relativePositionToAbsolutePosition(ydoc, sync.type, a.end, sync.binding.mapping as never)
  if (from === null || to === null || to <= from || to > state.doc.content.size) return null
  return { from, to }
}

function anchorsPlugin(ydoc: Y.Doc): Plugin<Anchor[]> {
  return new Plugin<Anchor[]>({
    key: anchorsKey,
    state: {
      init: () => [],
      apply: (tr, value) => (tr.getMeta(anchorsKey) as Anchor[] | undefined) ?? value,
    },
    props: {
      decorations(state) {
        const decos: Decoration[] = []
        for (const a of anchorsKey.getState(state) ?? []) {
          const r = anchorRange(state, ydoc, a)
          if (r) decos.push(Decoration.inline(r.from, r.to, { class: 'anchored', 'data-thread': a.threadId }))
        }
        return DecorationSet.create(state.doc, decos)
      },
    },
  })
}

export interface Editor {
  view: EditorView
  setAnchors(anchors: Anchor[]): void
  /** Selects and scrolls to a thread's text; false when it no longer resolves. */
  showAnchor(threadId: string): boolean
  destroy(): void
}

export function createEditor(
  mount: HTMLElement,
  ydoc: Y.Doc,
  awareness: Awareness,
  readOnly: boolean,
  label: string,
): Editor {
  const fragment = ydoc.getXmlFragment(ROOT)
  const marks = schema.marks
  const state = EditorState.create({
    schema,
    plugins: [
      ySyncPlugin(fragment),
      yCursorPlugin(awareness, {
        // an agent's caret (kind "agent", shown by the server for REST and MCP writes) is marked as one
        cursorBuilder: (user: { name: string; color: string; kind?: string }) => {
          const agent = user.kind === 'agent'
          const caret = h('span', {
            class: agent ? 'remote-caret agent-caret' : 'remote-caret',
            style: `border-color: ${user.color}`,
          })
          const label = h('span', { class: 'remote-name', style: `background-color: ${user.color}` }, user.name)
          if (agent) label.append(h('span', { class: 'agent-mark' }, 'agent'))
          caret.append(label)
          return caret
        },
      }),
      yUndoPlugin(),
      keymap({
        'Mod-z': undo,
        'Mod-y': redo,
        'Mod-Shift-z': redo,
        'Mod-b': toggleMark(marks.strong!),
        'Mod-i': toggleMark(marks.em!),
      }),
      keymap(baseKeymap),
      anchorsPlugin(ydoc),
    ],
  })
  const view = new EditorView(mount, {
    state,
    editable: () => !readOnly,
    attributes: {
      class: 'editor',
      role: 'textbox',
      'aria-multiline': 'true',
      'aria-label': label,
      'aria-readonly': String(readOnly),
    },
  })
  let anchors: Anchor[] = []
  return {
    view,
    setAnchors(next) {
      anchors = next
      view.dispatch(view.state.tr.setMeta(anchorsKey, next))
    },
    showAnchor(threadId) {
      const a = anchors.find((x) => x.threadId === threadId)
      const r = a && anchorRange(view.state, ydoc, a)
      if (!r) return false
      view.dispatch(view.state.tr.setSelection(TextSelection.create(view.state.doc, r.from, r.to)).scrollIntoView())
      view.focus()
      return true
    },
    destroy: () => view.destroy(),
  }
}
