{{/*
The routing of a user's script's index and method calls on redis-server
(backend/luaindex.go: routeStrings), defined on the key guard's line: the
Go side renders this template and joins its lines with spaces. No Lua
comment may appear below. Substitutions, each filled by routeStrings with
names made from the script's hash:
  .Index    o[k] and o.k: a string's field from the guard's string library
  .Method   o:k(...): the method, o kept for .Last
  .Last     the o of the last .Method, as the call's first argument
*/ -}}
local {{.Index}}, {{.Method}}, {{.Last}} do local S, ty, ts, err, last = string, type, tostring, error, nil
{{.Index}} = function(o, k) local t = ty(o) if t == 'string' then return S[k] end if t ~= 'table' then err('attempt to index a ' .. t .. ' value', 2) end return o[k] end
{{.Method}} = function(o, k) local t, f = ty(o), nil if t == 'string' then f = S[k] elseif t == 'table' then f = o[k] else err('attempt to index a ' .. t .. ' value', 2) end
if f == nil then err('attempt to call method \'' .. ts(k) .. '\' (a nil value)', 2) end last = o return f end
{{.Last}} = function() local o = last last = nil return o end end{{" "}}
