// Document content written by the control plane (admin `assets create --text`, the demo): lines of
// text become paragraphs of the `default` XML fragment, the shape Tiptap/y-prosemirror editors use.
import * as Y from 'yjs'

const DEFAULT_ROOT = 'default'

export function paragraphsUpdate(text: string, build?: (doc: Y.Doc) => void): Uint8Array {
  const doc = new Y.Doc()
  const fragment = doc.getXmlFragment(DEFAULT_ROOT)
  const paragraphs = text.split('\n').map((line) => {
    const p = new Y.XmlElement('paragraph')
    p.insert(0, [new Y.XmlText(line)])
    return p
  })
  fragment.insert(0, paragraphs)
  build?.(doc)
  const update = Y.encodeStateAsUpdate(doc)
  doc.destroy()
  return update
}
