// A generic_doc: the editor with its status line and the people present, and beside it the history
// and comment panels. Edit or view-only is chosen here (a ceiling; the server may grant less).
import { ApiError, said } from '../api.js'
import { colorOf } from '../colors.js'
import { fill, h } from '../dom.js'
import type { View, ViewContext } from '../view.js'
import { openSession, type CollabSession, type Status } from './collab.js'
import { commentsPanel } from './comments.js'
import { createEditor, ROOT, type Anchor, type Editor } from './editor.js'
import { historyPanel } from './history.js'
import { unknownElements } from './schema.js'
import { suggestionsPanel } from './suggestions.js'
import { versionsPanel } from './versions.js'

function statusText(s: Status, session: CollabSession | null, forcedReadOnly: string | null): string {
  switch (s.kind) {
    case 'connecting':
      return 'Connecting…'
    case 'synced':
      if (forcedReadOnly) return `Read-only: ${forcedReadOnly}`
      return s.readOnly || session?.readOnly
        ? 'Read-only · synced (you can read and follow along, not edit)'
        : 'Synced · changes are saved as you type'
    case 'offline':
      return `Offline: ${s.reason}. Edits made now are sent when the connection returns.`
    case 'error':
      return `Error: ${s.message}`
    case 'deleted':
      return 'Deleted: this document was deleted (an owner or admin may restore it). Nothing typed now is saved.'
  }
}

export function docView({ api, me, asset }: ViewContext): View {
  const canEdit = asset.access === 'edit'
  const mode = new URLSearchParams(location.hash.split('?')[1] ?? '').get('mode')
  let access: 'edit' | 'view' = canEdit && mode !== 'view' ? 'edit' : 'view'

  const statusLine = h(
    'p',
    { class: 'status-line', role: 'status', 'aria-live': 'polite', 'data-state': 'connecting' },
    'Connecting…',
  )
  const people = h('ul', { class: 'people', 'aria-label': 'People in this document' })
  const editorMount = h('div', { class: 'editor-mount' })
  const modeEdit = h('input', { type: 'radio', name: 'mode', id: 'mode-edit', value: 'edit', disabled: !canEdit })
  const modeView = h('input', { type: 'radio', name: 'mode', id: 'mode-view', value: 'view' })
  ;(access === 'edit' ? modeEdit : modeView).checked = true
  const panels = h('div', { class: 'panels' })
  const el = h(
    'section',
    { class: 'doc', 'aria-labelledby': 'doc-title' },
    h(
      'div',
      { class: 'doc-head' },
      h('h2', { id: 'doc-title' }, asset.title),
      h(
        'fieldset',
        { class: 'mode' },
        h('legend', {}, 'Open as'),
        modeEdit,
        h('label', { for: 'mode-edit' }, 'Editor'),
        modeView,
        h('label', { for: 'mode-view' }, 'Viewer (read-only)'),
        canEdit ? null : h('span', { class: 'hint' }, ' Your permission on this document is view.'),
      ),
    ),
    statusLine,
    h('div', { class: 'doc-body' }, h('div', { class: 'doc-main' }, editorMount, people), panels),
  )

  let session: CollabSession | null = null
  let editor: Editor | null = null
  let history: { el: HTMLElement; destroy(): void } | null = null
  let versions: { el: HTMLElement; destroy(): void } | null = null
  let suggestions: { el: HTMLElement; destroy(): void } | null = null
  let generation = 0

  const drawPeople = () => {
    if (!session) return
    fill(people)
    const states = [...session.provider.awareness.getStates().entries()].sort(([a], [b]) => a - b)
    for (const [clientId, st] of states) {
      const user = (st as { user?: { name: string; color: string; kind?: string; model?: string } }).user
      if (!user) continue
      const self = clientId === session.ydoc.clientID
      // an agent (over REST or MCP) is listed as one, with the color its caret has
      const agent = user.kind === 'agent'
      people.append(
        h(
          'li',
          { class: agent ? 'person agent' : 'person', ...(agent && user.model ? { title: user.model } : {}) },
          h('span', {
            class: 'dot',
            style: `background-color: ${agent ? user.color : colorOf(user.name)}`,
            'aria-hidden': 'true',
          }),
          self ? `${user.name} (you)` : user.name,
          ...(agent ? [h('span', { class: 'agent-mark' }, 'agent')] : []),
        ),
      )
    }
  }

  const stop = () => {
    history?.destroy()
    versions?.destroy()
    suggestions?.destroy()
    editor?.destroy()
    session?.destroy()
    history = versions = suggestions = editor = session = null
    fill(editorMount)
    fill(panels)
  }

  const start = async () => {
    const gen = ++generation
    stop()
    statusLine.textContent = 'Connecting…'
    statusLine.dataset.state = 'connecting'
    let s: CollabSession
    try {
      s = await openSession(api, asset.id, access, me.user_id)
    } catch (err) {
      if (gen !== generation) return
      if (err instanceof ApiError && err.status === 403) return showTextOnly(err)
      statusLine.textContent = `Error: cannot open this document. ${(err as Error).message}`
      statusLine.dataset.state = 'error'
      return
    }
    if (gen !== generation) return s.destroy()
    session = s
    let forcedReadOnly: string | null = null
    let anchors: Anchor[] = []

    // The editor is created after the first sync, once the content is known to fit the schema.
    const mountEditor = () => {
      const unknown = unknownElements(s.ydoc.getXmlFragment(ROOT))
      if (unknown.length && !s.readOnly)
        forcedReadOnly = `this document uses content the console cannot edit (${unknown.join(', ')})`
      editor = createEditor(
        editorMount,
        s.ydoc,
        s.provider.awareness,
        s.readOnly || forcedReadOnly !== null,
        `Text of ${asset.title}`,
      )
      editor.setAnchors(anchors)
    }

    const comments = commentsPanel(api, asset.id, {
      setAnchors: (a: Anchor[]) => {
        anchors = a
        editor?.setAnchors(a)
      },
      showAnchor: (id) => editor?.showAnchor(id) ?? false,
    })
    history = historyPanel(s)
    versions = versionsPanel(s)
    suggestions = suggestionsPanel(s)
    panels.append(suggestions.el, history.el, versions.el, comments.el)
    void comments.load()

    s.onStatus((st) => {
      if (st.kind === 'synced' && !editor) mountEditor()
      // The socket is gone for good: what is typed now would be lost, so nothing can be typed.
      if (st.kind === 'deleted') editor?.view.setProps({ editable: () => false })
      statusLine.textContent = statusText(st, s, forcedReadOnly)
      statusLine.dataset.state = st.kind === 'synced' && (s.readOnly || forcedReadOnly) ? 'read-only' : st.kind
    })
    s.provider.awareness.on('change', drawPeople)
    drawPeople()
  }

  // Live editing needs a collab token, which only workspace owners and admins may mint: anyone else
  // who may view the document reads its current text instead.
  const showTextOnly = async (why: ApiError) => {
    statusLine.textContent = `Text only: ${why.message} Live editing needs a workspace owner or admin; this is the document's text now.`
    statusLine.dataset.state = 'read-only'
    modeEdit.disabled = true
    try {
      const r = await said(api.assetContent(asset.id))
      fill(
        editorMount,
        h('pre', { class: 'doc-text', tabindex: '0', 'aria-label': `Text of ${asset.title}` }, r.content),
      )
      // Threads still list beside the text; their anchors have no editor to point into.
      const comments = commentsPanel(api, asset.id, {
        setAnchors: () => undefined,
        showAnchor: () => false,
        noEditor: true,
      })
      fill(panels, comments.el)
      void comments.load()
    } catch (err) {
      statusLine.textContent = `Error: cannot read this document. ${(err as Error).message}`
      statusLine.dataset.state = 'error'
    }
  }

  for (const r of [modeEdit, modeView]) {
    r.addEventListener('change', () => {
      access = modeEdit.checked ? 'edit' : 'view'
      void start()
    })
  }
  void start()
  return {
    el,
    destroy() {
      generation++
      stop()
    },
  }
}
