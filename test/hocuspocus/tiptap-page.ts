// Bundled for Chromium by tiptap.test.ts (by path): a Tiptap editor on a HocuspocusProvider, as an app
// would write it. Compiled without DOM types, hence the loose globals.
import { HocuspocusProvider } from '@hocuspocus/provider'
import { Editor } from '@tiptap/core'
import Collaboration from '@tiptap/extension-collaboration'
import StarterKit from '@tiptap/starter-kit'
import * as Y from 'yjs'

interface PageGlobals {
  document: { querySelector(selector: string): unknown }
  startTiptap?: (url: string, name: string, token: string) => Promise<string>
  tiptap?: Editor
}
const g = globalThis as unknown as PageGlobals

g.startTiptap = (url, name, token) =>
  new Promise((resolve, reject) => {
    const document = new Y.Doc()
    const provider = new HocuspocusProvider({ url, name, token, document })
    provider.on('authenticationFailed', ({ reason }: { reason: string }) => reject(new Error(reason)))
    provider.on('synced', () => resolve(provider.authorizedScope ?? ''))
    g.tiptap = new Editor({
      element: g.document.querySelector('#editor') as never,
      extensions: [StarterKit.configure({ undoRedo: false }), Collaboration.configure({ document })],
    })
  })
