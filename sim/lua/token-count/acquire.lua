-- token-count: acquire (the interview card's design: a grant token per outermost acquire).
-- The Hash keeps the grant token of the outermost acquire and a hold count.
-- KEYS[1]  the lock: Hash {owner = grant token, count = holds}
-- KEYS[2]  only with fencing: the lock's fencing-token counter
-- ARGV[1]  the caller's grant token
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  "1" for an outermost acquire (may take a free lock), "0" for nested
-- ARGV[4]  only with fencing: TTL of the counter key in milliseconds
-- The counter's TTL (the fourth argument) is Lockstep's cleanup, longer than the
-- run, so a run leaves nothing behind on someone's Redis; a lesson that sets a
-- shorter one (fencing_counter_ttl) shows the bug an expiring counter is. A production fencing counter must never expire and never
-- go back (a durable, monotonic store: a consensus store's revision, a database
-- sequence): a counter that restarts at 1 issues tokens the resource has seen
-- already, the backwards-token failure of lesson 20.
local lock, token, lease = KEYS[1], ARGV[1], ARGV[2]
local outermost = ARGV[3] == '1'

if redis.call('EXISTS', lock) == 0 then
  if not outermost then
    -- A nested call inherits a hold that is no longer there: the lease ran out.
    return 'LOST' -- [LOST]
  end
  redis.call('HSET', lock, 'owner', token, 'count', 1)
  redis.call('PEXPIRE', lock, lease)
  if KEYS[2] then
    -- The fencing token is issued in the same atomic step as the hold.
    local fence = redis.call('INCR', KEYS[2])
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
    return {'ACQUIRED', fence} -- [ACQUIRED]
  end
  return 'ACQUIRED' -- [ACQUIRED]
end

if redis.call('HGET', lock, 'owner') == token then
  redis.call('HINCRBY', lock, 'count', 1)
  redis.call('PEXPIRE', lock, lease)
  return 'REENTERED' -- [REENTERED]
end

return 'BUSY' -- [BUSY]
