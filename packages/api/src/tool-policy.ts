// The values a tool policy may take. Pure (no store, no Node API): the API schemas, and through
// their types the browser client, import it.
export const VISIBILITIES = ['visible', 'hidden'] as const
export const APPROVAL_MODES = ['no_approval', 'required_with_override', 'required_no_override'] as const
export type Visibility = (typeof VISIBILITIES)[number]
export type ApprovalMode = (typeof APPROVAL_MODES)[number]
