-- Redisson RLock, acquire (tryLockInnerAsync's semantics, our own text).
-- The Hash field names the holder as <client uuid>:<thread id>; a free lock
-- or the holder's own field gets one more hold and a fresh lease.
-- Success replies nil; a lock held by another replies its PTTL, so the
-- waiter knows how long to wait before it retries.
-- KEYS[1]  the lock: Hash {<uuid>:<thread id> = holds}
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the holder: <uuid>:<thread id>
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil -- [ACQUIRED] [REENTERED]
end
return redis.call('pttl', KEYS[1]) -- [BUSY]
