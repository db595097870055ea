-- Take or re-enter the lock.
-- KEYS[1]  the lock: String = the owner id
-- KEYS[2]  the owner id (passed as a key, as some clients do)
-- ARGV[1]  the lease, in seconds
-- The hold count is kept beside the lock, in KEYS[1] .. ':count'.
local count = KEYS[1] .. ':count'
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], KEYS[2], 'EX', ARGV[1])
  redis.call('SET', count, 1, 'EX', ARGV[1])
  return 1 -- [ACQUIRED]
end
if holder == KEYS[2] then
  redis.call('INCR', count)
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', count, ARGV[1])
  return 1 -- [REENTERED]
end
return 0 -- [BUSY]
