-- Acquire, with a guard on a count that was never written.
-- KEYS[1]  the lock: String = the owner id
-- ARGV[1]  the owner id
-- ARGV[2]  the lease, in seconds
local count = redis.call('GET', KEYS[1] .. ':count')
local n = tonumber(count)
if n > 10 then
  return nil -- [BUSY]
end
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2]) -- [ACQUIRED]
