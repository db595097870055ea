-- token-count: release one hold (the interview card's design).
-- KEYS[1]  the lock: Hash {owner = grant token, count = holds}
-- ARGV[1]  the caller's grant token
local lock, token = KEYS[1], ARGV[1]

-- HGET on a missing key gives false, which never equals a token.
if redis.call('HGET', lock, 'owner') ~= token then
  return 'NOT_OWNER' -- [NOT_OWNER]
end

if redis.call('HINCRBY', lock, 'count', -1) > 0 then
  return 'STILL_HELD' -- [STILL_HELD]
end

redis.call('DEL', lock)
return 'RELEASED' -- [RELEASED]
