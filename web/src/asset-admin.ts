// Deleting and restoring assets, for the workspace's owners and admins (GET /me gives the role):
// a Delete button above the open asset (soft unless "erase for good" is ticked, always confirmed),
// and the list of deleted assets in the side bar, each with Restore.
import { said, type Api, type AssetSummary, type DeletedAsset } from './api.js'
import { confirmDialog } from './confirm.js'
import { fill, h, uid, when } from './dom.js'

/** The Delete button of an open asset; `done` gets what was deleted once the server answered. */
export function deleteButton(
  api: Api,
  asset: AssetSummary,
  done: (msg: string) => void,
  failed: (msg: string) => void,
): HTMLElement {
  const button = h(
    'button',
    { type: 'button', class: 'small danger-outline', 'aria-label': `Delete “${asset.title}”` },
    'Delete…',
  )
  button.addEventListener('click', async () => {
    const hardId = uid('hard')
    const hard = h('input', { type: 'checkbox', id: hardId })
    const extra = h(
      'p',
      { class: 'hard-choice' },
      hard,
      ' ',
      h(
        'label',
        { for: hardId },
        'Erase for good: its content, history and versions, in every store. This cannot be undone.',
      ),
    )
    const ok = await confirmDialog({
      title: `Delete “${asset.title}”?`,
      message:
        'Open editors are closed and nobody can open it until an owner or admin restores it from Deleted assets. Its content is kept.',
      confirm: 'Delete',
      extra,
    })
    if (!ok) return
    button.disabled = true
    try {
      await said(api.deleteAsset(asset.id, { hard: hard.checked }))
      done(
        hard.checked
          ? `Erased “${asset.title}” for good.`
          : `Deleted “${asset.title}”. Restore it from Deleted assets.`,
      )
    } catch (err) {
      button.disabled = false
      failed(`Could not delete “${asset.title}”: ${(err as Error).message}`)
    }
  })
  return button
}

/** The side bar's list of soft-deleted assets with Restore; reload() fetches it again. */
export function deletedList(
  api: Api,
  restored: (a: DeletedAsset) => void,
): { el: HTMLElement; reload(workspaceId: string): Promise<void> } {
  const list = h('ul', { class: 'deleted-assets', 'aria-labelledby': 'deleted-title' })
  const status = h('p', { class: 'nav-status', role: 'status' })
  const el = h(
    'section',
    { class: 'bin', 'aria-labelledby': 'deleted-title' },
    h('h2', { id: 'deleted-title' }, 'Deleted assets'),
    status,
    list,
  )
  let shown = ''

  const reload = async (workspaceId: string) => {
    shown = workspaceId
    try {
      const r = await said(api.deletedAssets(workspaceId))
      if (shown !== workspaceId) return
      status.textContent = r.assets.length ? '' : 'None.'
      fill(list, ...r.assets.map((a) => item(workspaceId, a)))
    } catch (err) {
      status.textContent = (err as Error).message
    }
  }

  const item = (workspaceId: string, a: DeletedAsset) => {
    const restore = h('button', { type: 'button', class: 'small', 'aria-label': `Restore “${a.title}”` }, 'Restore')
    restore.addEventListener('click', async () => {
      restore.disabled = true
      try {
        await said(api.restoreAsset(a.id))
        await reload(workspaceId)
        status.textContent = `Restored “${a.title}”.`
        restored(a)
      } catch (err) {
        restore.disabled = false
        status.textContent = `Could not restore “${a.title}”: ${(err as Error).message}`
      }
    })
    return h(
      'li',
      { 'data-id': a.id },
      h('span', { class: 'deleted-title' }, a.title),
      h('span', { class: 'hint' }, ` deleted by ${a.deleted_by}, ${when(a.deleted_at_ms)} `),
      restore,
    )
  }
  return { el, reload }
}
