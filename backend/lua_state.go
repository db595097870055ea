package backend

import lua "github.com/yuin/gopher-lua"

// miniredis runs every EVAL in a fresh gopher-lua state made with
// gopher-lua's package defaults: a value stack (its "registry") of 5,120
// slots and a call stack of 256 frames, about 100 KB allocated and cleared
// per script call, half of all the embedded backend allocated per lesson
// step. Lockstep's scripts (sim/lua/*/*.lua, backend/lua/restore.lua) are
// short and barely nest, so the embedded backend sets smaller defaults:
// 1,024 stack slots and 64 call frames. This is gopher-lua's documented way
// to size states (its config.go: RegistrySize, CallStackSize), set in init,
// before any state is made, so no read races with it. It is process-wide,
// and it makes the embedded Redis stricter than redis-server: a script that
// nests calls 64 deep, or unpacks about a thousand values at once, fails
// with a Lua error (a stack or registry overflow), where redis-server would
// run it. None of Lockstep's scripts comes near: every script of every
// variant runs on miniredis with these sizes in lessons.TestLessonsGolden
// (the course), refmodel.TestModelMatchesBackends (random lessons over
// every variant and action) and explore.TestEveryChoiceForks. Measured: a
// small EVAL on miniredis went from 263 to 219 µs and from 195 to 115 KB
// allocated per call (go test -bench, miniredis 2.40).
const (
	luaRegistrySize  = 1024
	luaCallStackSize = 64
)

func init() {
	lua.RegistrySize = luaRegistrySize
	lua.CallStackSize = luaCallStackSize
}
