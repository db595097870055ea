-- The protected resource, checking fencing tokens in two round trips (a known
-- mistake): round trip 1 of 2 reads the highest token the resource has
-- accepted; the client compares its own token with it and, if not lower,
-- sends write_unchecked.lua in a second round trip. Between the two, another
-- holder's write can land, and nothing checks again.
-- KEYS[1]  the resource: Hash {value, writer, fence}
return tonumber(redis.call('HGET', KEYS[1], 'fence') or '0') -- [PENDING] [REJECTED]
