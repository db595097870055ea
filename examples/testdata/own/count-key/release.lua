-- Give one hold back; the last one deletes both keys.
-- KEYS[1]  the lock: String = the owner id
-- KEYS[2]  the owner id
-- ARGV[1]  the lease, in seconds (renewed while holds remain)
local count = KEYS[1] .. ':count'
if redis.call('GET', KEYS[1]) ~= KEYS[2] then
  return -1 -- [NOT_OWNER]
end
local left = redis.call('DECR', count)
if left > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', count, ARGV[1])
  return 0 -- [STILL_HELD]
end
redis.call('DEL', KEYS[1], count)
return 1 -- [RELEASED]
