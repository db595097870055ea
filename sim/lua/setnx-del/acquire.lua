-- setnx-del: a plain lock, SET NX with a lease (a known mistake).
-- There is no reentrancy: a nested call runs the same SET NX, finds its own
-- key, and is refused like any stranger: a plain lock cannot tell its own
-- holder's nested call from another owner's.
-- KEYS[1]  the lock: String = owner token
-- ARGV[1]  owner token
-- ARGV[2]  lease in milliseconds
return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) -- [ACQUIRED] [BUSY]
