// WebSocket close codes Tandem sends. 1xxx are RFC 6455; 4xxx are ours (4000-4999 is the
// application range) and mirror HTTP statuses so clients can map them back.
export const CLOSE = {
  goingAway: 1001, // server shutting down
  tooLarge: 1009, // message or document over the limit
  policyViolation: 1008, // over a rate limit (frames or bytes per second)
  internalError: 1011,
  serviceRestart: 1012, // a cluster node draining: reconnect (through the load balancer) to another node
  tryAgainLater: 1013, // backpressure limit reached, or room full
  malformed: 4400, // undecodable frame: bad varint, unknown type, truncated update
  tokenExpired: 4401, // re-mint and reconnect, or refresh in band before expiry
  forbidden: 4403,
  docDeleted: 4404, // the document was deleted (an owner or admin may restore it): do not reconnect
} as const

export type CloseCode = (typeof CLOSE)[keyof typeof CLOSE]
