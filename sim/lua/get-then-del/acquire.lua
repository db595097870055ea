-- get-then-del: a plain lock, SET NX with a lease.
-- KEYS[1]  the lock: String = owner token
-- ARGV[1]  owner token
-- ARGV[2]  lease in milliseconds
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) -- [ACQUIRED] [BUSY]
