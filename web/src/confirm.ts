// A modal confirmation (the native <dialog>: focus moves in and stays, Escape cancels, focus goes
// back to the button that asked). Resolves true only when the confirming button is pressed.
import { h, uid } from './dom.js'

export function confirmDialog(opts: {
  title: string
  message: string
  confirm: string
  extra?: HTMLElement
}): Promise<boolean> {
  const titleId = uid('confirm-title')
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
  const cancel = h('button', { type: 'button' }, 'Cancel')
  const ok = h('button', { type: 'button', class: 'danger' }, opts.confirm)
  const dialog = h(
    'dialog',
    { class: 'confirm', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, opts.title),
    h('p', {}, opts.message),
    opts.extra,
    h('div', { class: 'confirm-buttons' }, cancel, ok),
  )
  document.body.append(dialog)
  return new Promise((resolve) => {
    let answer = false
    ok.addEventListener('click', () => {
      answer = true
      dialog.close()
    })
    cancel.addEventListener('click', () => dialog.close())
    dialog.addEventListener('close', () => {
      dialog.remove()
      opener?.focus()
      resolve(answer)
    })
    dialog.showModal()
    cancel.focus()
  })
}
