-- touch-with-setnx: extend the lease like touch, but when the key has
-- expired, set it again with SET NX and answer as if it had been extended.
-- The holder cannot tell a re-take from an extension: if another owner
-- held the lock between the expiry and this call, nothing says so.
-- KEYS[1]  the lock
-- ARGV[1]  owner id
-- ARGV[2]  lease in milliseconds
-- Reply: 1 when extended or re-taken, 0 when another owner holds the key.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
return 0
