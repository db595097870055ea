-- Re-establish each key of a Lockstep run as simulated time says it is, so
-- that what a step does never depends on how long a person paused before it.
-- Runs first in the step's MULTI/EXEC on a real Redis.
-- KEYS     every key of the run
-- ARGV     for each key, in order: type ("none", "hash" or "string"), PTTL in
--          milliseconds (the empty string: leave the key without an expiry,
--          for expire.lua to set), n; then n field/value pairs (hash) or
--          n = 1 value (string)
local a = 1
for _, key in ipairs(KEYS) do
  local kind, pttl, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  a = a + 3
  redis.call('DEL', key)
  if kind == 'hash' then
    for _ = 1, n do
      redis.call('HSET', key, ARGV[a], ARGV[a + 1])
      a = a + 2
    end
  elseif kind == 'string' then
    redis.call('SET', key, ARGV[a])
    a = a + 1
  end
  if kind ~= 'none' and pttl ~= '' then
    redis.call('PEXPIRE', key, pttl)
  end
end
return #KEYS
