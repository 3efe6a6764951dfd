// The content formats by name: light, for the route declarations that check them at start.
export const FORMATS = ['markdown', 'prosemirror', 'text'] as const
export type Format = (typeof FORMATS)[number]
