// Who follows which document, kept in Redis, and the publish that reads it. Every node reads one
// inbox channel of its own; a write cycle's messages go, in one script call, to the inboxes of the
// nodes that follow each document, never to the publisher itself and to no one when nobody else
// follows (with affinity, almost always). A script runs atomically in Redis, so the hand-over is
// race-free: a node registers before its catch-up read, and a cycle's publish runs after its
// commit; either the publish sees the registration (the message reaches the new follower) or it
// ran first, and then the commit precedes the registration and the catch-up reads it.
//
// Keys: tandem:followers:<doc> (set of node ids), tandem:follows:<node> (set of doc ids, so a
// lapsed node's registrations can be removed), channel tandem:inbox:<node>.
import { keys } from './keys.js'
import { runScript, type RedisClient } from './redis.js'

/**
 * KEYS: the followers sets of the documents; ARGV: self, inbox prefix, one payload per key. Returns messages sent per
 * key.
 */
const PUBLISH = `
local sent = {}
for i, key in ipairs(KEYS) do
  sent[i] = 0
  for _, node in ipairs(redis.call('SMEMBERS', key)) do
    if node ~= ARGV[1] then
      redis.call('PUBLISH', ARGV[2] .. node, ARGV[i + 2])
      sent[i] = sent[i] + 1
    end
  end
end
return sent`

/**
 * KEYS[1]: the node's follows set; ARGV: node, followers prefix, then the documents it follows now.
 * Drops every registration the node had and makes the given ones, at once (no window without).
 */
const REJOIN = `
for _, doc in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  redis.call('SREM', ARGV[2] .. doc, ARGV[1])
end
redis.call('DEL', KEYS[1])
for i = 3, #ARGV do
  redis.call('SADD', ARGV[2] .. ARGV[i], ARGV[1])
  redis.call('SADD', KEYS[1], ARGV[i])
end
return #ARGV - 2`

/**
 * KEYS[1]: a node's heartbeat, KEYS[2]: its follows set; ARGV: node, followers prefix. Removes a
 * lapsed node's registrations, unless its heartbeat is back (it rejoins by itself then).
 */
const REAP = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local docs = redis.call('SMEMBERS', KEYS[2])
for _, doc in ipairs(docs) do
  redis.call('SREM', ARGV[2] .. doc, ARGV[1])
end
redis.call('DEL', KEYS[2])
return #docs`

/**
 * Sends each payload to the inboxes of its document's followers other than `self`; resolves with the number sent per
 * message.
 */
export async function publishToFollowers(
  redis: RedisClient,
  self: string,
  messages: ReadonlyArray<readonly [docId: string, payload: Buffer]>,
): Promise<number[]> {
  if (messages.length === 0) return []
  const sent = await runScript(
    redis,
    PUBLISH,
    messages.map(([docId]) => keys.followers(docId)),
    [self, keys.inbox(''), ...messages.map(([, payload]) => payload)],
  )
  return (sent as unknown[]).map(Number)
}

/** Registers `node` as a follower of one document (before its catch-up read: see the header). */
export async function register(redis: RedisClient, node: string, docId: string): Promise<void> {
  await redis.multi().sAdd(keys.followers(docId), node).sAdd(keys.follows(node), docId).execAsPipeline()
}

export async function unregister(redis: RedisClient, node: string, docId: string): Promise<void> {
  await redis.multi().sRem(keys.followers(docId), node).sRem(keys.follows(node), docId).execAsPipeline()
}

/** Makes `docIds` exactly the node's registrations (after a reconnect, a Redis restart, a lapse). */
export async function rejoin(redis: RedisClient, node: string, docIds: string[]): Promise<void> {
  await runScript(redis, REJOIN, [keys.follows(node)], [node, keys.followers(''), ...docIds])
}

/** Removes a lapsed node's registrations unless its heartbeat is back; any node may, idempotent. */
export async function reap(redis: RedisClient, node: string): Promise<void> {
  await runScript(redis, REAP, [keys.node(node), keys.follows(node)], [node, keys.followers('')])
}
