// Which awareness clients belong to which other node, per document: when a node's heartbeat
// lapses, its clients' awareness is removed from every room here (and so from every local
// client's view). Pure bookkeeping; the room applies and removes the states.
export class RemoteAwareness {
  /** node -> docId -> awareness client ids */
  private byNode = new Map<string, Map<string, Set<number>>>()

  /** Records an awareness change from `node`: added/updated clients are its, removed ones no longer. */
  note(node: string, docId: string, change: { added: number[]; updated: number[]; removed: number[] }): void {
    let docs = this.byNode.get(node)
    if (!docs) this.byNode.set(node, (docs = new Map()))
    let ids = docs.get(docId)
    if (!ids) docs.set(docId, (ids = new Set()))
    for (const id of change.added) ids.add(id)
    for (const id of change.updated) ids.add(id)
    for (const id of change.removed) ids.delete(id)
    if (ids.size === 0) docs.delete(docId)
    if (docs.size === 0) this.byNode.delete(node)
  }

  /** The clients of `node`, per document, forgotten here: the caller removes their states. */
  takeNode(node: string): Map<string, number[]> {
    const docs = this.byNode.get(node)
    this.byNode.delete(node)
    return new Map([...(docs ?? new Map<string, Set<number>>())].map(([doc, ids]) => [doc, [...ids]]))
  }

  /** The node owning an awareness client of a document, if another node owns it. */
  owner(docId: string, clientId: number): string | undefined {
    for (const [node, docs] of this.byNode) if (docs.get(docId)?.has(clientId)) return node
    return undefined
  }

  /** A room unloaded: its remote clients go with it. */
  forgetDoc(docId: string): void {
    for (const [node, docs] of this.byNode) {
      docs.delete(docId)
      if (docs.size === 0) this.byNode.delete(node)
    }
  }

  /** Nodes that own awareness clients here. */
  nodes(): string[] {
    return [...this.byNode.keys()]
  }
}
