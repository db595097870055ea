-- The watchdog: the owner's field still there, the lease starts again.
-- KEYS[1] the lock; ARGV[1] the owner, ARGV[2] the lease in ms.
if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
