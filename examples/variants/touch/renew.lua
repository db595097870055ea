-- touch: extend the lease of a key that still holds the caller's owner id,
-- and nothing else: a key that expired, or that another owner set since,
-- is not brought back, so the reply tells the holder it lost the lock.
-- KEYS[1]  the lock
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- Reply: 1 when extended, 0 when the lock is no longer the caller's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
