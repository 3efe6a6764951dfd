// The versions panel: named versions of the document (the collab `versions` routes, see
// docs/history.md). Save the document as it is now under a name, list them newest first, open one
// read-only (rendered from the version's own Yjs state in a separate Y.Doc that is never connected,
// so the live document is untouched), rename (a 409 says who won and offers the current name),
// delete, and restore (rollback `{version}`, rw tokens only).
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import type { VersionRecord } from '@tandem/api/versions'
import { ApiError, said } from '../api.js'
import { confirmDialog } from '../confirm.js'
import { fill, h, uid, when } from '../dom.js'
import type { CollabSession } from './collab.js'
import { createEditor, type Editor } from './editor.js'

// The wire shape is the server's record; type-only, so nothing of src/ is bundled.
type Version = VersionRecord

export function versionsPanel(session: CollabSession): { el: HTMLElement; destroy(): void } {
  const nameId = uid('version-name')
  const name = h('input', { id: nameId, type: 'text', maxlength: '200', required: true, autocomplete: 'off' })
  const save = h('button', { type: 'submit' }, 'Save version')
  const form = h('form', { class: 'version-save' }, h('label', { for: nameId }, 'Version name'), name, save)
  const status = h('p', { class: 'panel-status versions-status', role: 'status' })
  const list = h('ol', { class: 'versions', 'aria-label': 'Named versions, newest first' })
  const preview = h('div', { class: 'version-preview' })
  const el = h(
    'section',
    { class: 'panel versions-panel', 'aria-labelledby': 'versions-title' },
    h('h3', { id: 'versions-title' }, 'Versions'),
    session.readOnly
      ? h('p', { class: 'hint' }, 'Saving, renaming, deleting and restoring versions need edit access.')
      : form,
    status,
    list,
    preview,
  )

  let versions: Version[] = []
  let destroyed = false
  let previewEditor: Editor | null = null
  let previewDoc: Y.Doc | null = null
  let previewId: string | null = null
  const say = (text: string, error = false) => {
    status.textContent = text
    status.classList.toggle('error', error)
  }
  const rest = session.rest

  const closePreview = () => {
    previewEditor?.destroy()
    previewDoc?.destroy()
    previewEditor = previewDoc = null
    previewId = null
    fill(preview)
  }

  const refresh = async () => {
    try {
      const r = await said(rest.versions())
      if (destroyed) return
      versions = r
      draw()
    } catch (err) {
      if (!destroyed) say(`Versions unavailable: ${(err as Error).message}`, true)
    }
  }

  const draw = () => {
    fill(list)
    if (versions.length === 0) list.append(h('li', { class: 'hint' }, 'No named versions yet.'))
    for (const v of versions) list.append(row(v))
  }

  const row = (v: Version): HTMLElement => {
    const li = h('li', { class: 'version', 'data-id': v.id })
    const button = (label: string, action: () => void, disabled = false) => {
      const b = h('button', { type: 'button', 'aria-label': `${label} version “${v.name}”`, disabled }, label)
      b.addEventListener('click', action)
      return b
    }
    const ro = session.readOnly
    fill(
      li,
      h('span', { class: 'version-name' }, v.name),
      h(
        'span',
        { class: 'version-meta' },
        `${v.by}, `,
        h('time', { datetime: new Date(v.created_at_ms).toISOString() }, when(v.created_at_ms)),
      ),
      h(
        'span',
        { class: 'version-actions' },
        button('Open', () => void open(v)),
        button('Rename', () => rename(li, v), ro),
        button('Restore', () => void restore(v), ro),
        button('Delete', () => void remove(v), ro),
      ),
    )
    return li
  }

  const open = async (v: Version) => {
    closePreview()
    fill(preview, h('p', {}, `Loading “${v.name}”…`))
    try {
      const r = await said(rest.version(v.id))
      if (destroyed) return
      // A Y.Doc of its own, never connected: the version is rendered, the live document untouched.
      const doc = new Y.Doc()
      Y.applyUpdate(doc, r.doc)
      const mount = h('div', { class: 'version-doc' })
      const close = h('button', { type: 'button' }, 'Close version')
      close.addEventListener('click', () => {
        closePreview()
        list.querySelector<HTMLButtonElement>(`li[data-id="${CSS.escape(v.id)}"] button`)?.focus()
      })
      fill(
        preview,
        h('h4', { id: 'version-preview-title' }, `“${r.version.name}” (read-only)`),
        h('p', { class: 'hint' }, `Saved by ${r.version.by}, ${when(r.version.created_at_ms)}.`),
        mount,
        h('div', { class: 'restore-row' }, close),
      )
      previewDoc = doc
      previewId = v.id
      previewEditor = createEditor(
        mount,
        doc,
        new Awareness(doc),
        true,
        `Text of version “${r.version.name}” (read-only)`,
      )
      close.focus()
    } catch (err) {
      fill(preview, h('p', { class: 'error' }, `Could not open “${v.name}”: ${(err as Error).message}`))
    }
  }

  const rename = (li: HTMLElement, v: Version) => {
    const inputId = uid('rename')
    const input = h('input', {
      id: inputId,
      type: 'text',
      maxlength: '200',
      required: true,
      value: v.name,
      autocomplete: 'off',
    })
    const note = h('p', { class: 'rename-note', role: 'status' })
    const ok = h('button', { type: 'submit' }, 'Save name')
    const cancel = h('button', { type: 'button' }, 'Cancel')
    const form = h(
      'form',
      { class: 'rename' },
      h('label', { for: inputId }, `New name for “${v.name}”`),
      input,
      ok,
      cancel,
      note,
    )
    let current = v
    cancel.addEventListener('click', () => {
      draw()
      list.querySelector<HTMLButtonElement>(`li[data-id="${CSS.escape(v.id)}"] button[aria-label^="Rename"]`)?.focus()
    })
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault()
      ok.disabled = true
      try {
        await said(rest.renameVersion(v.id, input.value, current.updated_at_ms))
        say(`Renamed to “${input.value}”.`)
        await refresh()
      } catch (err) {
        const body = err instanceof ApiError ? (err.body as { version?: Version } | null) : null
        if (err instanceof ApiError && err.status === 409 && body?.version) {
          // Someone renamed it first: nothing was overwritten. Show their name; saving again renames from it.
          current = body.version
          const keep = h('button', { type: 'button' }, `Keep “${current.name}”`)
          keep.addEventListener('click', () => void refresh())
          fill(
            note,
            `Not renamed: someone else renamed this version to “${current.name}” meanwhile (${when(current.updated_at_ms)}). Save again to rename it from “${current.name}”, or `,
            keep,
            '.',
          )
        } else fill(note, `Not renamed: ${(err as Error).message}`)
        ok.disabled = false
      }
    })
    fill(li, form)
    input.focus()
    input.select()
  }

  const restore = async (v: Version) => {
    say(`Restoring “${v.name}”…`)
    try {
      const r = await said(
        session.rest.call<{ applied: boolean; removed: number; restored: number }>('rollback', {
          method: 'POST',
          json: { version: v.id },
        }),
      )
      say(
        r.applied
          ? `Restored “${v.name}”: ${r.removed} removed, ${r.restored} brought back. Every open editor shows it.`
          : `Nothing to restore: the document already reads like “${v.name}”.`,
      )
    } catch (err) {
      say(`Restore failed: ${(err as Error).message}`, true)
    }
  }

  const remove = async (v: Version) => {
    if (
      !(await confirmDialog({
        title: 'Delete version',
        message: `Delete the version “${v.name}”? This cannot be undone; the document itself is not changed.`,
        confirm: 'Delete version',
      }))
    )
      return
    try {
      await said(rest.deleteVersion(v.id))
      say(`Deleted “${v.name}”.`)
      if (previewId === v.id) closePreview()
      await refresh()
    } catch (err) {
      say(`Delete failed: ${(err as Error).message}`, true)
    }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    save.disabled = true
    try {
      const v = await said(rest.createVersion(name.value))
      say(`Saved “${v.name}”.`)
      name.value = ''
      await refresh()
    } catch (err) {
      say(`Not saved: ${(err as Error).message}`, true)
    } finally {
      save.disabled = false
    }
  })

  void refresh()
  return {
    el,
    destroy() {
      destroyed = true
      closePreview()
    },
  }
}
