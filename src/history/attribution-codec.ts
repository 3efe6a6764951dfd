// Byte form of the attribution index. Columnar (one column per field, deltas where values follow
// one another: seq, time, the clock after a client's previous range) and then deflated, so a
// typing burst costs a few bytes per edit. Version byte first; a new layout gets a new version.
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import type { IndexEntry, Range } from './attribution.js'

const VERSION = 1

export function encodeIndex(entries: Iterable<IndexEntry>): Uint8Array {
  const users = new Map<string, number>()
  const clients = new Map<number, number>()
  const cols = {
    seq: encoding.createEncoder(),
    at: encoding.createEncoder(),
    user: encoding.createEncoder(),
    counts: encoding.createEncoder(),
    ranges: encoding.createEncoder(),
  }
  let prevSeq = 0
  let prevAt = 0
  // clock delta is taken from the end of the client's previous range of the same kind
  const lastIns = new Map<number, number>()
  const lastDel = new Map<number, number>()
  const writeRanges = (rs: Range[], last: Map<number, number>) => {
    encoding.writeVarUint(cols.counts, rs.length)
    for (const [client, clock, len] of rs) {
      let ci = clients.get(client)
      if (ci === undefined) clients.set(client, (ci = clients.size))
      encoding.writeVarUint(cols.ranges, ci)
      encoding.writeVarInt(cols.ranges, clock - (last.get(client) ?? 0))
      encoding.writeVarUint(cols.ranges, len)
      last.set(client, clock + len)
    }
  }
  let count = 0
  for (const e of entries) {
    count++
    encoding.writeVarUint(cols.seq, e.seq - prevSeq)
    encoding.writeVarInt(cols.at, e.at - prevAt)
    prevSeq = e.seq
    prevAt = e.at
    let ui = users.get(e.user)
    if (ui === undefined) users.set(e.user, (ui = users.size))
    encoding.writeVarUint(cols.user, ui)
    encoding.writeVarUint(cols.counts, e.inserted)
    encoding.writeVarUint(cols.counts, e.deleted)
    writeRanges(e.ins, lastIns)
    writeRanges(e.del, lastDel)
  }
  const out = encoding.createEncoder()
  encoding.writeVarUint(out, count)
  encoding.writeVarUint(out, users.size)
  for (const u of users.keys()) encoding.writeVarString(out, u)
  encoding.writeVarUint(out, clients.size)
  for (const c of clients.keys()) encoding.writeVarUint(out, c)
  for (const col of Object.values(cols)) encoding.writeVarUint8Array(out, encoding.toUint8Array(col))
  const body = deflateRawSync(encoding.toUint8Array(out))
  const framed = new Uint8Array(body.length + 1)
  framed[0] = VERSION
  framed.set(body, 1)
  return framed
}

export function decodeIndex(bytes: Uint8Array): IndexEntry[] {
  if (bytes[0] !== VERSION) throw new Error(`unknown attribution index version ${bytes[0]}`)
  const d = decoding.createDecoder(inflateRawSync(bytes.subarray(1)))
  const n = decoding.readVarUint(d)
  const users = Array.from({ length: decoding.readVarUint(d) }, () => decoding.readVarString(d))
  const clients = Array.from({ length: decoding.readVarUint(d) }, () => decoding.readVarUint(d))
  const col = () => decoding.createDecoder(decoding.readVarUint8Array(d))
  const seq = col()
  const at = col()
  const user = col()
  const counts = col()
  const ranges = col()
  const lastIns = new Map<number, number>()
  const lastDel = new Map<number, number>()
  const readRanges = (last: Map<number, number>): Range[] => {
    const out: Range[] = []
    for (let k = decoding.readVarUint(counts); k > 0; k--) {
      const client = clients[decoding.readVarUint(ranges)]!
      const clock = (last.get(client) ?? 0) + decoding.readVarInt(ranges)
      const len = decoding.readVarUint(ranges)
      last.set(client, clock + len)
      out.push([client, clock, len])
    }
    return out
  }
  const entries: IndexEntry[] = []
  let s = 0
  let t = 0
  for (let i = 0; i < n; i++) {
    s += decoding.readVarUint(seq)
    t += decoding.readVarInt(at)
    const u = users[decoding.readVarUint(user)]!
    const inserted = decoding.readVarUint(counts)
    const deleted = decoding.readVarUint(counts)
    const ins = readRanges(lastIns)
    const del = readRanges(lastDel)
    entries.push({ seq: s, at: t, user: u, inserted, deleted, ins, del })
  }
  return entries
}
