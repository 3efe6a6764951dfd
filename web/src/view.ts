// What every asset view gives the shell: its element, and a destroy that closes sockets and timers.
import type { Api, AssetSummary, Me } from './api.js'

export interface View {
  el: HTMLElement
  destroy(): void
}

export interface ViewContext {
  api: Api
  me: Me
  asset: AssetSummary
  workspaceId: string
}
