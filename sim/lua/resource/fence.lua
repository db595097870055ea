-- Issue a fencing token for a hold that the acquire just before this script,
-- in the same MULTI/EXEC, took: no other client runs between the two, so the
-- token is as atomic with the hold as if the acquire script issued it (as
-- token-count's does). Used by variants whose scripts know nothing of fencing.
-- KEYS[1]  the lock
-- KEYS[2]  the lock's fencing-token counter
-- ARGV[1]  the owner id the acquire used
-- ARGV[2]  "string": the lock is a String = owner; "field": a Hash field owner = count
-- ARGV[3]  TTL of the counter key in milliseconds
-- The counter's TTL is Lockstep's cleanup only, so a run leaves nothing behind
-- on someone's Redis. A production fencing counter must never expire and never
-- go back (a durable, monotonic store: a consensus store's revision, a database
-- sequence): a counter that restarts at 1 issues tokens the resource has seen
-- already, the backwards-token failure of lesson 20.
local took
if ARGV[2] == 'string' then
  took = redis.call('GET', KEYS[1]) == ARGV[1]
elseif ARGV[2] == 'owner' then
  -- A Hash {owner = owner id, count = holds}: a variant file's owner-and-count layout.
  took = redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'count') == '1'
else
  -- A count of exactly 1 means the acquire created this owner's hold.
  took = redis.call('HGET', KEYS[1], ARGV[1]) == '1'
end

if not took then
  return 0 -- [NONE]
end

local fence = redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return fence -- [FENCED]
