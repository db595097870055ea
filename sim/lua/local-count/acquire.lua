-- local-count: take the plain lock (the Java design's ThreadLocal count).
-- Reentry never reaches Redis: the caller counts holds in its own memory, so
-- only the first acquire sets the lease and nothing ever extends it.
-- KEYS[1]  the lock: String = owner token
-- ARGV[1]  owner token
-- ARGV[2]  lease in milliseconds
-- SET ... NX gives OK when it wrote, and nil (false in Lua) when the key exists.
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) -- [ACQUIRED] [BUSY]
