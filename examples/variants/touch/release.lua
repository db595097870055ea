-- touch: delete the key only while it still holds the caller's owner id.
-- KEYS[1]  the lock
-- ARGV[1]  owner id
-- Reply: 1 when deleted, 0 when the key is gone or another owner's.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
return redis.call('DEL', KEYS[1])
