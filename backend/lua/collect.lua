-- Gives back the Lua heap of a user's script stopped for memory
-- (backend/luaheap.go, collectLuaHeap). Each full collection halves Lua's
-- concatenation buffer, which stays at its largest size otherwise: 24 take
-- it from 1 GB to its minimum. Touches no key.
for _ = 1, 24 do
  collectgarbage('collect')
end
return collectgarbage('count')
