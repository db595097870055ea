-- The protected resource, comparing fencing tokens inside its own write: it
-- remembers the highest token it has accepted and, in the same script that
-- writes, refuses any lower one, so a stale owner that wakes up after its
-- lease ended cannot overwrite a newer owner's work.
-- KEYS[1]  the resource: Hash {value, writer, fence}
-- ARGV[1]  value
-- ARGV[2]  writer (actor id, for the learner's eyes)
-- ARGV[3]  the writer's fencing token (0 if it has none)
-- ARGV[4]  TTL of the resource key in milliseconds
-- The TTL is Lockstep's cleanup only. A production resource must keep its
-- highest token for good: if it forgot it, a stale owner's lower token would
-- pass again.
local highest = tonumber(redis.call('HGET', KEYS[1], 'fence') or '0')
local token = tonumber(ARGV[3])

if token < highest then
  return 0 -- [REJECTED]
end

redis.call('HSET', KEYS[1], 'value', ARGV[1], 'writer', ARGV[2], 'fence', token)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1 -- [ACCEPTED]
