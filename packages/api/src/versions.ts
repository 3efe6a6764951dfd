// A named version as the collab REST `versions` routes answer it: a name people give the document
// as it was at one moment (the server keeps that moment's state beside it: src/versions/).

export interface VersionRecord {
  id: string
  name: string
  /** the document's last logged seq when the version was taken */
  seq: number
  created_at_ms: number
  /** changes on every rename: the optimistic check of PATCH compares it */
  updated_at_ms: number
  /** token `sub` of whoever created it */
  by: string
}
