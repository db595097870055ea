-- A Hash lock, a field per owner holding its hold count.
-- KEYS[1] the lock; ARGV[1] the owner, ARGV[2] the lease in ms.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[1], 1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
