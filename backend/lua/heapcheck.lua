{{/*
The heap and time check of a user's script on redis-server
(backend/luaheap.go: heapBounded), defined on the key guard's line: the Go
side renders this template and joins its lines with spaces. No Lua comment
may appear below. Substitutions, each filled by heapBounded:
  .Name         the check's name, made from the script's hash
  .Now          nowName, the guard's local that reads the server's time in ms
  .Every        timeCheckEvery: checks between two reads of the time
  .RunMS        MaxScriptRunTime in ms
  .Per          the heap growth allowed, in bytes, before a full collection
                and after it (MaxScriptHeap over twice the operands a
                concatenation of the script could have)
  .Heap         MaxScriptHeap in bytes
  .TimeStopped, .HeapStopped   timeStoppedMarker, heapStoppedMarker
*/ -}}
local {{.Name}} do local cg, err, base, now, k = collectgarbage, error, collectgarbage('count'), {{.Now}}, 0 local t0 = now()
{{.Name}} = function() k = k + 1 if k % {{.Every}} == 0 and now() - t0 > {{.RunMS}} then err('{{.TimeStopped}} a script of your own may run at most {{.RunMS}} ms on Redis', 2) end
if (cg('count') - base) * 1024 > {{.Per}} then cg('collect')
if (cg('count') - base) * 1024 > {{.Per}} then err('{{.HeapStopped}} a script of your own may grow Redis\'s Lua heap by at most {{.Heap}} bytes ({{.Per}} per concatenation of this script: {{.Heap}} bytes in all)', 2) end end return '' end end{{" "}}
