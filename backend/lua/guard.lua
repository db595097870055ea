{{/*
The key guard's prelude (backend/luaguard.go: keyGuard), put before a
user's script on its first line: the Go side renders this template and
joins its lines with spaces, so that the script's line numbers stay.
No Lua comment may appear below (it would run to the end of the one
line). Substitutions, each filled by keyGuard:
  .Level, .Inner       the level of the guard's errors (2 on redis-server,
                       3 in gopher-lua) and of its helpers' (one deeper)
  .Record, .Clock      "true"/"false": note the keys written (a Derived
                       batch); run on the step's clock (vclock.go)
  .InPlace             "true" on a miniredis: bound the string library
                       and cjson in place rather than shadow them
  .ShadowNames/.ShadowLibs  the further locals the guard declares and
                       returns (cjson, cmsgpack on redis-server; the
                       heap check's clock, nowName)
  .Spec                the command table, " name=K[+] ..." (guardedCommands,
                       writingCommands)
  .Values              valuesMarker, which ScriptSource replaces with
                       the call's value positions (guardValues)
  .Copying, .Elements  copyingCommands, elementCommands, space-separated
  the rest             markers, suffixes and bounds of luaguard.go, as text
*/ -}}
local redis, _G, loadstring, load, string, table, getmetatable{{.ShadowNames}} = (function(R, G, KS, S, T, GM)
local pcall_, floor, unpack_, exp, pcall_lua = R.pcall, math.floor, unpack, math.exp, pcall
local ty, ts, tn, sub, lower, upper, find, err, sel, setmt, concat, rep, fmt, gsub, log = type, tostring, tonumber, string.sub, string.lower, string.upper, string.find, error, select, setmetatable, table.concat, string.rep, string.format, string.gsub, math.log
local spec = '{{.Spec}} '{{" "}}
local V = {{.Values}} local K = {} for i = 1, #KS do if not V[i] then K[#K + 1] = ts(KS[i]) end end
local WB = 0
local REG = K[1] and (K[1] .. '{{.WrittenSuffix}}') local REC, seen = {{.Record}}, {}
local CLK = K[1] and (K[1] .. '{{.ClockSuffix}}') local VT = nil
if {{.Clock}} and CLK then VT = tn(pcall_('GET', CLK)) if VT then local t = pcall_('TIME') if tn(t[1]) * 1000 + floor(tn(t[2]) / 1000) ~= VT then err('{{.ClockMoved}}', 0) end end end
local function own(k) local t = ty(k) if t ~= 'string' and t ~= 'number' then return true end k = ts(k) if k == REG or k == CLK then return false end for i = 1, #K do if k == K[i] or sub(k, 1, #K[i] + 1) == K[i] .. ':' then return true end end return false end
local function refuse(c, k) return '{{.KeyGuard}} ' .. upper(c) .. ' on key \'' .. ts(k) .. '\' refused: a script of your own may touch only its KEYS and keys that start with one of them and a colon (its run\'s own keys)' end
local function keyBase(v) for i = 1, #K do if sub(v, 1, #K[i]) == K[i] then return #K[i] end end return 0 end
local function mine(k) for i = 1, #K do if k == K[i] then return true end end return false end
local function check(...)
local n = sel('#', ...) if n == 0 then return nil end
local a = {...} local c = lower(ts(a[1])) local s, w
if not find(c, '[^%w]') then local _, e = find(spec, ' ' .. c .. '=', 1, true) if e then s, w = sub(spec, e + 1, e + 1), sub(spec, e + 2, e + 2) == '+' end end
if s == nil then return '{{.KeyGuard}} ' .. upper(c) .. ' refused: a script of your own may not call it, as Lockstep cannot tell which keys it touches' end
if find(' {{.Copying}} ', ' ' .. c .. ' ', 1, true) then return '{{.KeyGuard}} ' .. upper(c) .. ' refused: a script of your own may not call it, as Lockstep cannot bound the bytes it writes' end
local from, to, step = 2, 1, 1
if s == '1' then to = 2 elseif s == '2' then to = 3 elseif s == 'A' then to = n elseif s == 'M' then to, step = n, 2
elseif s == 'N' then if n >= 2 and not own(a[2]) then return refuse(c, a[2]) end local m = tn(a[3]) if m == nil then return '{{.KeyGuard}} ' .. upper(c) .. ' refused: no number of keys' end from, to = 4, 3 + m
elseif s == 'n' then local m = tn(a[2]) if m == nil then return '{{.KeyGuard}} ' .. upper(c) .. ' refused: no number of keys' end from, to = 3, 2 + m end
if to > n then to = n end
for i = from, to, step do if not own(a[i]) then return refuse(c, a[i]) end end
if w then local b = {{.WriteOverhead}} if c == 'setrange' then b = b + (tn(a[3]) or 0) + #ts(a[4] or '') elseif c == 'setbit' then b = b + floor((tn(a[3]) or 0) / 8) + 1 else for i = 2, n do local v = a[i] if ty(v) == 'string' or ty(v) == 'number' then v = ts(v) b = b + #v - keyBase(v) end end end if c == 'pfadd' then b = b + {{.HLLBytes}} end if n > 2 and find(' {{.Elements}} ', ' ' .. c .. ' ', 1, true) then b = b + {{.ElementOverhead}} * (n - 2) end
WB = WB + b if WB > {{.MaxWrite}} then return '{{.WritesStopped}} ' .. upper(c) .. ' refused: a script of your own may write at most {{.MaxWrite}} bytes in one call (keys and values, and the offsets of SETRANGE and SETBIT)' end end
if REC and w and REG then for i = from, to, step do local k = ts(a[i]) if not seen[k] and not mine(k) then seen[k] = true pcall_('SADD', REG, k) pcall_('PEXPIRE', REG, {{.WrittenTTLMS}}) end end end
return nil
end
local r, g, s, t = {}, {}, {}, {}
local function now() local x = pcall_('TIME') if ty(x) ~= 'table' or x.err or not tn(x[1]) then return 0 end return tn(x[1]) * 1000 + floor(tn(x[2]) / 1000) end
local function at(v, unit) v = tn(v) if v == nil or v <= 0 or v ~= floor(v) then return nil end return VT + v * unit end
local function timed(...)
local n = sel('#', ...) local a = {...} local c = lower(ts(a[1]))
if (c == 'pttl' or c == 'ttl') and n == 2 then
local e = pcall_('PEXPIRETIME', a[2]) if ty(e) ~= 'number' or e < 0 then return e end
local left = e - VT if left < 0 then left = 0 end
if c == 'ttl' then return floor((left + 500) / 1000) end return left
elseif c == 'set' or c == 'getex' then
local from = 4 if c == 'getex' then from = 3 end
for i = from, n - 1 do local o = upper(ts(a[i])) if o == 'EX' or o == 'PX' then local t = at(a[i + 1], o == 'EX' and 1000 or 1) if t then a[i], a[i + 1] = 'PXAT', t end end end
elseif (c == 'setex' or c == 'psetex') and n == 4 then
local t = at(a[3], c == 'setex' and 1000 or 1) if t then return pcall_('SET', a[2], a[4], 'PXAT', t) end
elseif (c == 'expire' or c == 'pexpire') and n >= 3 then
local v = tn(a[3]) if v and v == floor(v) then a[1], a[3] = 'PEXPIREAT', VT + v * (c == 'expire' and 1000 or 1) end
end
return pcall_(unpack_(a, 1, n))
end
local function send(...) if VT then return timed(...) end return pcall_(...) end
r.call = function(...) local e = check(...) if e then err(e, {{.Level}}) end local v = send(...) if ty(v) == 'table' and v.err ~= nil then err(v.err, {{.Level}}) end return v end
r.pcall = function(...) local e = check(...) if e then return {err = 'ERR ' .. e} end return send(...) end
local function compile() err('{{.CompileRefused}}', {{.Level}}) end
local made, work, W = 0, 0, 0
local function make(b) made = made + b if made > {{.MaxMadeTotal}} then err('{{.MadeStopped}} a script of your own may make at most {{.MaxMadeTotal}} bytes in all with the string functions, table.concat, cjson and cmsgpack in one call', {{.Inner}}) end end
s.rep = function(x, n, ...) local c = tn(n) if (ty(x) == 'string' or ty(x) == 'number') and c and c > 0 then local b = #ts(x) * c if b > {{.MaxMade}} then err('{{.RepStopped}} of ' .. fmt('%.0f', b) .. ' bytes is more than the {{.MaxMade}} a script of your own may make', {{.Level}}) end if c > {{.MaxMade}} then err('{{.RepStopped}} of ' .. fmt('%.0f', c) .. ' copies is more than the {{.MaxMade}} a script of your own may make', {{.Level}}) end make(b) end return rep(x, n, ...) end
t.concat = function(a, sp, i, j) if ty(a) == 'table' and (sp == nil or ty(sp) == 'string' or ty(sp) == 'number') then local n, l = 0, #ts(sp or '') for k = tn(i) or 1, tn(j) or #a do local v = a[k] if ty(v) == 'string' or ty(v) == 'number' then n = n + #ts(v) + l end if n > {{.MaxMade}} then err('{{.ConcatStopped}} of more than {{.MaxMade}} bytes is more than a script of your own may make', {{.Level}}) end end make(n) end return concat(a, sp, i, j) end
local function heavy(f, x, p, plain, anchored) if (ty(p) ~= 'string' and ty(p) ~= 'number') or (ty(x) ~= 'string' and ty(x) ~= 'number') then return end local n, ps = #ts(x), ts(p) local m = n * #ps if m > {{.PatternWorkTotal}} then err('{{.PatternStopped}} ' .. f .. ' of ' .. #ps .. ' bytes in ' .. n .. ' bytes refused: it could compare some ' .. fmt('%.0f', m) .. ' bytes, more than the {{.PatternWorkTotal}} one call of a script of your own may', {{.Inner}}) end if plain then work = work + m if work > {{.PatternWorkTotal}} then err('{{.PatternStopped}} ' .. f .. ' refused: the pattern matches of one call of a script of your own may backtrack some {{.PatternWorkTotal}} steps in all', {{.Inner}}) end return end local _, q = gsub(ps, '[%*%+%-%?]', '') local _, q2 = gsub(ps, '%%[b1-9]', '') q = q + q2 local e = q + 1 if anchored and sub(ps, 1, 1) == '^' then e = q end if n > 1 then local w = e * log(n) if m > 1 and log(m) > w then w = log(m) end if w > {{.PatternWorkLog}} then err('{{.PatternStopped}} ' .. f .. ' of a pattern with ' .. q .. ' repetition items on ' .. n .. ' bytes refused: it could backtrack for hours', {{.Inner}}) end work = work + exp(w) if work > {{.PatternWorkTotal}} then err('{{.PatternStopped}} ' .. f .. ' refused: the pattern matches of one call of a script of your own may backtrack some {{.PatternWorkTotal}} steps in all', {{.Inner}}) end end end
local S_find, S_match, S_gmatch, S_gsub, S_format = S.find, S.match, S.gmatch, S.gsub, S.format
local T_sort = T.sort
t.sort = function(a, c) if ty(a) == 'table' then local n, l = #a, 0 for k = 1, n do local v = a[k] if ty(v) == 'string' and #v > l then l = #v end end if n > 1 then local w = n * log(n) / log(2) * (l + 1) if w > {{.PatternWorkTotal}} then err('{{.SortStopped}} ' .. n .. ' values of up to ' .. l .. ' bytes refused: it could compare some ' .. fmt('%.0f', w) .. ' bytes, more than the {{.PatternWorkTotal}} one call of a script of your own may', {{.Level}}) end work = work + w if work > {{.PatternWorkTotal}} then err('{{.SortStopped}} refused: the sorts and pattern matches of one call of a script of your own may compare some {{.PatternWorkTotal}} bytes in all', {{.Level}}) end end end if c == nil then return T_sort(a) end return T_sort(a, c) end
s.find = function(x, p, i, plain) heavy('string.find', x, p, plain, true) return S_find(x, p, i, plain) end
s.match = function(x, p, ...) heavy('string.match', x, p, false, true) return S_match(x, p, ...) end
s.gmatch = function(x, p) heavy('string.gmatch', x, p) return S_gmatch(x, p) end
local function gsubBig(b) err('{{.GsubStopped}} could make ' .. fmt('%.0f', b) .. ' bytes, more than the {{.MaxMade}} a script of your own may make', {{.Inner}}) end
s.gsub = function(x, p, r, ...) local m = (...) heavy('string.gsub', x, p, false, true) local tx, tr = ty(x), ty(r) if (tx == 'string' or tx == 'number') and (ty(p) == 'string' or ty(p) == 'number') then local n = #ts(x)
if tr == 'string' or tr == 'number' then local rs = ts(r) local _, k = gsub(rs, '%%%d', '') local c = n + 1 local mm = tn(m) if mm and mm < c then c = mm end if c < 0 then c = 0 end local b = n + c * (#rs + 10 * k) + k * n if b > {{.MaxMade}} then gsubBig(b) end make(b)
elseif tr == 'table' or tr == 'function' then local st, rr = {total = n}, r local function one(...) if tr == 'table' then return rr[(...)] end return rr(...) end local a, c = S_gsub(x, p, function(...) if st.over then return false end local ok, v = pcall_lua(one, ...) if not ok then st.over, st.e = true, v return false end if ty(v) == 'string' or ty(v) == 'number' then st.total = st.total + #ts(v) if st.total > {{.MaxMade}} then st.over = true return false end end return v end, ...)
local e = st.e if e ~= nil then local i = ty(e) == 'string' and find(e, 'lockstep: ', 1, true) if i then err(sub(e, i), {{.Level}}) end err(e, 0) end if st.over then gsubBig(st.total) end make(#a) return a, c end end
return S_gsub(x, p, r, ...) end
s.format = function(f, ...) if ty(f) == 'string' or ty(f) == 'number' then local fs = ts(f) local q = 1 if find(fs, '%%q') then q = 4 end local b, a = #fs, {...} for i = 1, sel('#', ...) do local v = a[i] if ty(v) == 'string' or ty(v) == 'number' then b = b + q * #ts(v) end b = b + 512 end if b > {{.MaxMade}} then err('{{.FormatStopped}} could make ' .. fmt('%.0f', b) .. ' bytes, more than the {{.MaxMade}} a script of your own may make', {{.Level}}) end make(b) end return S_format(f, ...) end
local nx = next
local copying = {'upper', 'lower', 'reverse', 'sub'} for i = 1, 4 do local k = copying[i] local f = S[k] s[k] = function(...) local v = f(...) if ty(v) == 'string' then make(#v) end return v end end
local function wsize(v, d, n) local t = ty(v) if t == 'string' then local _, e = gsub(v, '[%c"\\/]', '') return n + #v + 5 * e + 6 elseif t == 'table' then if d > 1000 then return n end n = n + 2 for k, x in nx, v do n = wsize(x, d + 1, wsize(k, d + 1, n) + 2) if n > {{.MaxMade}} then return n end end return n end return n + 32 end
local CJ, CM = rawget(G, 'cjson'), rawget(G, 'cmsgpack') local J, M = nil, nil
if CJ then J = {} local enc = CJ.encode J.encode = function(v) local b = wsize(v, 0, 0) if b > {{.MaxMade}} then err('{{.EncodeStopped}} cjson.encode could make more than the {{.MaxMade}} bytes a script of your own may make', {{.Level}}) end make(b) return enc(v) end setmt(J, {__index = CJ, __newindex = CJ, __metatable = false}) end
if CM then M = {} local pk = CM.pack M.pack = function(...) local b, a = 0, {...} for i = 1, sel('#', ...) do b = wsize(a[i], 0, b) if b > {{.MaxMade}} then err('{{.EncodeStopped}} cmsgpack.pack could make more than the {{.MaxMade}} bytes a script of your own may make', {{.Level}}) end end make(b) return pk(...) end setmt(M, {__index = CM, __newindex = CM, __metatable = false}) end
if {{.InPlace}} then for k, f in nx, s do S[k] = f end if CJ then CJ.encode = J.encode end if CM then CM.pack = M.pack end end
local function gm(x) if ty(x) == 'string' then return nil end return GM(x) end
g.redis, g._G, g.loadstring, g.load, g.string, g.table, g.getmetatable = r, g, compile, compile, s, t, gm
if not {{.InPlace}} then g.cjson, g.cmsgpack = J, M end
local hidden = {REDIS_VERSION = true, REDIS_VERSION_NUM = true}
setmt(r, {__index = function(_, k) if hidden[k] then return nil end return R[k] end, __newindex = R, __metatable = false})
setmt(g, {__index = G, __newindex = G, __metatable = false})
setmt(s, {__index = S, __newindex = S, __metatable = false})
setmt(t, {__index = T, __newindex = T, __metatable = false})
return r, g, compile, compile, s, t, gm{{.ShadowLibs}}
end)(redis, _G, KEYS, string, table, getmetatable){{" "}}
