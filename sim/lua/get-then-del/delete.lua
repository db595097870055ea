-- get-then-del, release round trip 2 of 2: delete the key the client checked
-- a moment ago. Nothing here checks the owner again.
-- KEYS[1]  the lock: String = owner token
return redis.call('DEL', KEYS[1]) -- [RELEASED] [NOT_OWNER]
