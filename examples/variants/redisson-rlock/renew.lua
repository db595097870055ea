-- Redisson RLock, the watchdog's renewal (renewExpirationAsync's
-- semantics, our own text): while the field is still this holder's, reset
-- the lease. The client renews every lease/3 (lockWatchdogTimeout / 3).
-- KEYS[1]  the lock: Hash {<uuid>:<thread id> = holds}
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  the holder: <uuid>:<thread id>
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1 -- [RENEWED]
end
return 0 -- [GONE]
