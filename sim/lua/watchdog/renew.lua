-- watchdog: the holder's client renews the lease every lease/3 for as long as
-- the hold is its own. Renewal stops when the process pauses or dies, or when
-- this script finds the hold gone.
-- KEYS[1]  the lock: Hash {<client id>:<thread id> = holds}
-- ARGV[1]  lease in milliseconds
-- ARGV[2]  holder field
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return 1 -- [RENEWED]
end
return 0 -- [GONE]
