-- local-count: the last local release drops the plain lock (the Java design's
-- ThreadLocal count).
-- Delete only while the value is still the caller's token: after a lease ran
-- out the key may belong to someone else.
-- KEYS[1]  the lock: String = owner token
-- ARGV[1]  owner token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1 -- [RELEASED]
end
return 0 -- [NOT_OWNER]
