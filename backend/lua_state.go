package backend

import lua "github.com/yuin/gopher-lua"

// miniredis runs every EVAL in a fresh gopher-lua state made with
// gopher-lua's package defaults: a value stack (its "registry") of 5,120
// slots and a call stack of 256 frames, about 100 KB allocated and cleared
// per script call, half of all the embedded backend allocates per lesson
// step. Lockstep's scripts (sim/variants/*/*.lua, lua/restore.lua) are
// short and barely nest, so the embedded backend sets smaller defaults:
// 1,024 stack slots and 64 call frames. This is gopher-lua's documented way
// to size states (config.go: RegistrySize, CallStackSize), set once before
// any state is made; it touches no other behaviour. A script that needed
// more would fail with a Lua error (a registry or stack overflow); every
// script of every variant runs on miniredis with these sizes in
// lessons.TestLessonsGolden (the course), refmodel.TestModelMatchesBackends
// (random lessons over every variant and action) and
// explore.TestEveryChoiceForks. Measured: a small EVAL on miniredis went
// from 263 to 219 µs and from 195 to 115 KB allocated per call, and the
// embedded step round trip (bench, row 1) from about 1.2 ms to 0.9-1.0 ms
// at p50.
const (
	luaRegistrySize  = 1024
	luaCallStackSize = 64
)

func init() {
	lua.RegistrySize = luaRegistrySize
	lua.CallStackSize = luaCallStackSize
}
