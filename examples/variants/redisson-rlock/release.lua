-- Redisson RLock, release (unlockInnerAsync's semantics, our own text).
-- Every unlock call carries a request id. Its answer is kept in a latch key
-- of its own, with its own TTL, so a client that retries the call after a
-- timeout gets the first answer back instead of releasing a second time.
-- The last hold deletes the lock and publishes on the lock's channel, where
-- waiting clients listen so that they retry at once.
-- KEYS[1]  the lock: Hash {<uuid>:<thread id> = holds}
-- KEYS[2]  the lock's channel (a channel name, not a key)
-- KEYS[3]  this unlock call's latch: String = its first answer (0 or 1)
-- ARGV[1]  the message published on release
-- ARGV[2]  lease in milliseconds (renewed while holds remain)
-- ARGV[3]  the holder: <uuid>:<thread id>
-- ARGV[4]  how long the latch remembers the answer, in milliseconds
local earlier = redis.call('get', KEYS[3])
if earlier ~= false then
  return tonumber(earlier) -- [STILL_HELD] [RELEASED] (a retry: the first answer again)
end
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil -- [NOT_OWNER]
end
local holds = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if holds > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  redis.call('set', KEYS[3], 0, 'px', ARGV[4])
  return 0 -- [STILL_HELD]
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
redis.call('set', KEYS[3], 1, 'px', ARGV[4])
return 1 -- [RELEASED]
