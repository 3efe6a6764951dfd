// One stable colour per person (cursor, history highlights), readable on white.
const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#e377c2',
  '#8c564b',
  '#17becf',
  '#bcbd22',
  '#ff7f0e',
  '#7f7f7f',
]

export function colorOf(name: string): string {
  let h = 2166136261
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619)
  return PALETTE[(h >>> 0) % PALETTE.length]!
}
