-- The protected resource, checking fencing tokens in two round trips (a known
-- mistake): round trip 2 of 2 writes the value and records the writer's token
-- as the highest, without comparing again. The comparison the client made a
-- round trip earlier may no longer hold: a newer holder may have written with
-- a higher token since, and this write then overwrites it and moves the
-- recorded token back. Compare write_fenced.lua, which compares and writes in
-- one script.
-- KEYS[1]  the resource: Hash {value, writer, fence}
-- ARGV[1]  value
-- ARGV[2]  writer (actor id, for the learner's eyes)
-- ARGV[3]  the writer's fencing token, checked a round trip earlier
-- ARGV[4]  TTL of the resource key in milliseconds
-- The TTL is Lockstep's cleanup only; a production resource keeps its
-- highest token for good.
redis.call('HSET', KEYS[1], 'value', ARGV[1], 'writer', ARGV[2], 'fence', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1 -- [ACCEPTED]
