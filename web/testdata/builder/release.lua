-- One hold less; the last one deletes the lock.
-- KEYS[1] the lock; ARGV[1] the owner, ARGV[2] the lease in ms.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
return 1
