-- Fix a step's clock (backend/vclock.go): write the server's millisecond
-- to each clock key, for the key guard of the step's user scripts to run
-- at. Runs in the step's MULTI/EXEC right after the restore.
-- KEYS   the clock key of each call of a user's script
-- ARGV   [1] the clock keys' TTL, in milliseconds
-- Returns the millisecond (Unix ms).
local t = redis.call('TIME')
local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, key in ipairs(KEYS) do
  redis.call('SET', key, ms, 'PX', ARGV[1])
end
return ms
