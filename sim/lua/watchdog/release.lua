-- watchdog: release one hold; the last one deletes the key and announces it
-- on a channel that waiting clients subscribe to, so they retry at once.
-- KEYS[1]  the lock: Hash {<client id>:<thread id> = holds}
-- KEYS[2]  the lock's release channel (a channel name, not a key)
-- ARGV[1]  lease in milliseconds (renewed while holds remain)
-- ARGV[2]  holder field
local lock, channel, lease, holder = KEYS[1], KEYS[2], ARGV[1], ARGV[2]

if redis.call('HEXISTS', lock, holder) == 0 then
  return nil -- [NOT_OWNER]
end

if redis.call('HINCRBY', lock, holder, -1) > 0 then
  redis.call('PEXPIRE', lock, lease)
  return 0 -- [STILL_HELD]
end

redis.call('DEL', lock)
redis.call('PUBLISH', channel, 'released')
return 1 -- [RELEASED]
