-- watchdog: acquire, in the manner of Redisson's RLock.
-- The Hash field names the holder as <client id>:<thread id>. Success replies
-- nil; a busy lock replies its remaining PTTL, so a waiter knows how long the
-- current hold may last.
-- KEYS[1]  the lock: Hash {<client id>:<thread id> = holds}
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  holder field
local lock, lease, holder = KEYS[1], ARGV[1], ARGV[2]

if redis.call('EXISTS', lock) == 0 or redis.call('HEXISTS', lock, holder) == 1 then
  redis.call('HINCRBY', lock, holder, 1)
  redis.call('PEXPIRE', lock, lease)
  return nil -- [ACQUIRED] [REENTERED]
end

return redis.call('PTTL', lock) -- [BUSY]
