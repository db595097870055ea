-- hash-refresh: release one hold (the Node.js design).
-- A partial release renews the lease; the last one deletes the key.
-- The reply is 1 both for "still held" and for "released": only the key
-- itself tells the two apart.
-- KEYS[1]  the lock: Hash {<owner id> = holds}
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
local lock, owner, lease = KEYS[1], ARGV[1], ARGV[2]

if redis.call('HEXISTS', lock, owner) == 0 then
  return 0 -- [NOT_OWNER]
end

if redis.call('HINCRBY', lock, owner, -1) > 0 then
  redis.call('PEXPIRE', lock, lease)
  return 1 -- [STILL_HELD]
end

redis.call('DEL', lock)
return 1 -- [RELEASED]
