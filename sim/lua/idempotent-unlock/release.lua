-- idempotent-unlock: token-count's release, made safe to retry.
-- Each unlock call carries an id, and its first answer is kept in a latch
-- key of that call's own, with its own TTL (as Redisson's unlock latch
-- does): a retry of the same call within the TTL gets that answer back
-- instead of releasing a second time. Steady traffic makes many small
-- latches that each expire, not one memory that every unlock keeps alive;
-- a retry that comes after its latch expired is a new call again.
-- KEYS[1]  the lock: Hash {owner = grant token, count = holds}
-- KEYS[2]  this unlock call's latch: String = its first answer
-- ARGV[1]  the caller's grant token
-- ARGV[2]  this unlock call's id
-- ARGV[3]  how long to remember answers, in milliseconds
local lock, latch, token = KEYS[1], KEYS[2], ARGV[1]

local earlier = redis.call('GET', latch)
if earlier then
  return earlier -- [RELEASED] [STILL_HELD] [NOT_OWNER] (a retry: the first answer again)
end

local answer
if redis.call('HGET', lock, 'owner') ~= token then
  answer = 'NOT_OWNER' -- [NOT_OWNER]
elseif redis.call('HINCRBY', lock, 'count', -1) > 0 then
  answer = 'STILL_HELD' -- [STILL_HELD]
else
  redis.call('DEL', lock)
  answer = 'RELEASED' -- [RELEASED]
end

redis.call('SET', latch, answer, 'PX', ARGV[3])
return answer
