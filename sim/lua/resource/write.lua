-- The protected resource, with no fencing: every write lands.
-- KEYS[1]  the resource: Hash {value, writer}
-- ARGV[1]  value
-- ARGV[2]  writer (actor id, for the learner's eyes)
-- ARGV[3]  TTL of the resource key in milliseconds (Lockstep leaves nothing behind)
redis.call('HSET', KEYS[1], 'value', ARGV[1], 'writer', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1 -- [ACCEPTED]
