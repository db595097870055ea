-- hash-nil: acquire (the Java design's Redis Hash lock).
-- HINCRBY creates the owner's field at 1 on a free lock, so one write serves
-- a first acquire and a reentry alike.
-- KEYS[1]  the lock: Hash {<owner token> = holds}
-- ARGV[1]  owner token
-- ARGV[2]  lease in milliseconds
local lock, owner, lease = KEYS[1], ARGV[1], ARGV[2]

if redis.call('EXISTS', lock) == 1 and redis.call('HEXISTS', lock, owner) == 0 then
  return 0 -- [BUSY]
end

redis.call('HINCRBY', lock, owner, 1)
redis.call('PEXPIRE', lock, lease)
return 1 -- [ACQUIRED] [REENTERED]
