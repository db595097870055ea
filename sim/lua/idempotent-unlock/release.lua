-- idempotent-unlock: token-count's release (seed 001), made safe to retry.
-- Each unlock call carries an id; the first answer is remembered under that
-- id (the memory lives one lease past the latest unlock), and a retry of the same call gets that answer back instead
-- of releasing a second time.
-- KEYS[1]  the lock: Hash {owner = grant token, count = holds}
-- KEYS[2]  recent unlock calls: Hash {<unlock id> = first answer}
-- ARGV[1]  the caller's grant token
-- ARGV[2]  this unlock call's id
-- ARGV[3]  how long to remember answers, in milliseconds
local lock, calls, token, id = KEYS[1], KEYS[2], ARGV[1], ARGV[2]

local earlier = redis.call('HGET', calls, id)
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

redis.call('HSET', calls, id, answer)
redis.call('PEXPIRE', calls, ARGV[3])
return answer
