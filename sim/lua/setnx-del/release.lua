-- setnx-del: release by deleting the key, with no owner check (a known
-- mistake). A caller whose lease ran out deletes whoever holds the lock now.
-- KEYS[1]  the lock: String = owner token
return redis.call('DEL', KEYS[1]) -- [RELEASED] [NOT_OWNER]
