-- hash-nil: release one hold (the Java design's Redis Hash lock).
-- Three replies: nil when the caller holds nothing here, 0 when holds remain,
-- 1 when the last hold is gone. A client that reads the reply as a boolean
-- sees nil and 0 both as false.
-- A partial release does not renew the lease.
-- KEYS[1]  the lock: Hash {<owner token> = holds}
-- ARGV[1]  owner token
local lock, owner = KEYS[1], ARGV[1]

if redis.call('HEXISTS', lock, owner) == 0 then
  return nil -- [NOT_OWNER]
end

if redis.call('HINCRBY', lock, owner, -1) > 0 then
  return 0 -- [STILL_HELD]
end

redis.call('DEL', lock)
return 1 -- [RELEASED]
