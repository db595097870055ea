{{/*
Redis's environment on a miniredis (backend/luaenv.go: redisEnvPrefix), put
before a user's script on its first line: the Go side renders this
template and joins its lines with spaces, so that the script's line
numbers stay. No Lua comment may appear below. In a block of its own (the
script cannot name its locals) it bounds string.rep and table.concat by
MaxMadeBytes, removes RemovedGlobals with rawset, and raises miniredis's
errors for a missing global at the script's line (level 3 in gopher-lua).
Substitutions, each filled by redisEnvPrefix:
  .MaxMade                     MaxMadeBytes
  .RepStopped, .ConcatStopped  repStoppedMarker, concatStoppedMarker
  .Removed                     RemovedGlobals as a Lua table of strings
*/ -}}
do local rep, max = string.rep, {{.MaxMade}}
string.rep = function(s, n, ...) local c = tonumber(n) if (type(s) == 'string' or type(s) == 'number') and c and c > 0 and #tostring(s) * c > max then
error('{{.RepStopped}} of ' .. string.format('%.0f', #tostring(s) * c) .. ' bytes is more than the {{.MaxMade}} a script of your own may make', 3)
end return rep(s, n, ...) end
local concat = table.concat
table.concat = function(t, sep, i, j) if type(t) == 'table' and (sep == nil or type(sep) == 'string' or type(sep) == 'number') then
local n, from, to, sl = 0, tonumber(i) or 1, tonumber(j) or #t, #tostring(sep or '')
for k = from, to do local v = t[k] if type(v) == 'string' or type(v) == 'number' then n = n + #tostring(v) + sl end if n > max then
error('{{.ConcatStopped}} of more than {{.MaxMade}} bytes is more than a script of your own may make', 3)
end end end return concat(t, sep, i, j) end
for _, name in ipairs({{.Removed}}) do rawset(_G, name, nil) end
local mt = getmetatable(_G) if type(mt) == 'table' then
mt.__index = function(t, n) error("Script attempted to access nonexistent global variable '" .. tostring(n) .. "'", 3) end
end end{{" "}}
