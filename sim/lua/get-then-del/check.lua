-- get-then-del, release round trip 1 of 2: read the owner. The client
-- compares it with its token and, if equal, sends DEL in a second round trip.
-- Between the two, the lease can end and the lock can change hands.
-- KEYS[1]  the lock: String = owner token
return redis.call('GET', KEYS[1]) -- [PENDING] [NOT_OWNER]
