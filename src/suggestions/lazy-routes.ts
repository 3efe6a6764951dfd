// The suggestion REST routes as a start sees them: declared (rest-schema.ts), their module (hunks,
// the content diff) imported on the first suggestion request; and the agents' routes composed: the
// content route holding writes as suggestions when asked, or as the workspace's registry says.
import { lazyRoutes, type RestRoutes } from '../collab/rest/route-model.js'
import { lazyContentRoutes } from '../content/lazy-routes.js'
import type { ContentHooks } from '../content/routes.js'
import type { HistoryService } from '../history/service.js'
import { SUGGESTION_ROUTES } from './rest-schema.js'
import type { SuggestionNotice } from './routes.js'
import type { SuggestionStore } from './store.js'

const lazySuggestionRoutes = (store: SuggestionStore, open: () => Promise<HistoryService>, notify?: SuggestionNotice) =>
  lazyRoutes(SUGGESTION_ROUTES, async () => (await import('./routes.js')).suggestionHandlers(store, open, notify))

/** The content and suggestion routes, the first holding agents' writes through the second. */
export function agentRoutes(o: {
  suggestions: SuggestionStore
  openHistory: () => Promise<HistoryService>
  notify: SuggestionNotice
  /** the agents' policy (src/agents/): whether a content write is held */
  agents: ContentHooks['agents']
}): RestRoutes {
  const suggestionRoutes = lazySuggestionRoutes(o.suggestions, o.openHistory, o.notify)
  const hooks: ContentHooks = {
    // validated against the suggestions route's own declaration, as a request there would be
    suggest: (req, ctx) => suggestionRoutes.suggestions!.POST!.handle(req, ctx),
    revise: async (req, ctx, id, change) =>
      (await import('./revise.js')).reviseSuggestion(o.suggestions, o.openHistory, req, ctx, id, change),
    // the author's reject is a withdrawal (routes.ts decide)
    withdraw: (req, ctx, id) =>
      suggestionRoutes.suggestions!.POST!.handle({ ...req, id, action: 'reject', body: null }, ctx),
    agents: o.agents,
  }
  return { ...lazyContentRoutes(o.openHistory, hooks), ...suggestionRoutes }
}
