// What a room tells a y-websocket peer whose writes it refuses: y-protocols' permission-denied
// message, which the stock provider logs and otherwise ignores.
import { encodePermissionDenied } from '@tandem/protocol/messages'
import type { ReadOnlyNotices } from '../transport.js'

const READ_ONLY = encodePermissionDenied('read-only: this token does not allow changes')
const NARROWED = encodePermissionDenied('edit access withdrawn: this connection is read-only now')

export const Y_WEBSOCKET_READ_ONLY_NOTICES: ReadOnlyNotices = {
  writeRefused: (socket) => void socket.send(READ_ONLY),
  narrowed: (socket) => void socket.send(NARROWED),
}
