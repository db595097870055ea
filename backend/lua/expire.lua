-- Set each key's PTTL after restore.lua wrote its contents without one
-- (backend/store.go, Store.exec): only this part of a step's restore must
-- run in the step's server millisecond, and it takes microseconds however
-- many fields the keys hold.
-- KEYS     the keys restore.lua wrote, none absent
-- ARGV     each key's PTTL in milliseconds, in order
for i, key in ipairs(KEYS) do
  redis.call('PEXPIRE', key, ARGV[i])
end
return #KEYS
