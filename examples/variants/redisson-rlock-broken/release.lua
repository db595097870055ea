-- A broken copy of redisson-rlock's release, for `lockstep search` to
-- catch: it checks only that the lock is taken, not that the caller holds
-- it, so a holder whose lease ran out deletes the next holder's lock.
-- KEYS[1]  the lock: Hash {<uuid>:<thread id> = holds}
-- KEYS[2]  the lock's channel
-- ARGV[1]  the message published on release
if redis.call('exists', KEYS[1]) == 0 then
  return nil -- [NOT_OWNER]
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1 -- [RELEASED]
