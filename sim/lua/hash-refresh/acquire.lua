-- hash-refresh: acquire (the Node.js design, AsyncLocalStorage).
-- The owner is the execution context's request id; the Hash maps it to a count.
-- Every successful call renews the lease.
-- KEYS[1]  the lock: Hash {<owner id> = holds}
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
local lock, owner, lease = KEYS[1], ARGV[1], ARGV[2]

if redis.call('EXISTS', lock) == 0 then
  redis.call('HSET', lock, owner, 1)
  redis.call('PEXPIRE', lock, lease)
  return 1 -- [ACQUIRED]
end

if redis.call('HEXISTS', lock, owner) == 1 then
  redis.call('HINCRBY', lock, owner, 1)
  redis.call('PEXPIRE', lock, lease)
  return 1 -- [REENTERED]
end

return 0 -- [BUSY]
