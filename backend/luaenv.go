package backend

import (
	"fmt"
	"strings"
)

// RemovedGlobals are the globals that gopher-lua (as miniredis opens it)
// gives a script and redis-server 7.0 does not: the ones that read or run
// files (dofile, loadfile, require, module, package), write to the
// server's output (print), reach other functions' environments (getfenv,
// setfenv, debug), and the rest of gopher-lua's extras. Listed from
// redis-server 7.0.15's _G (every global and library field an EVAL sees)
// against miniredis 2.40's; TestRemovedGlobalsMatchRedis checks each on
// both. On the embedded Redis a user's script runs with these removed, so
// that naming one fails as it does on redis-server: "Script attempted to
// access nonexistent global variable 'loadfile'".
var RemovedGlobals = []string{
	"dofile", "loadfile", "require", "module", "package", "print",
	"getfenv", "setfenv", "newproxy", "debug", "os", "server",
	"_GOPHER_LUA_VERSION", "_printregs",
}

// MaxMadeBytes bounds the string one string.rep or table.concat call makes
// in a user's script, in bytes: MaxReplyBytes (64 KiB), what a step reads
// back at most, hundreds of times what a lock holds. Both make their whole
// result at once, before any memory watch could see it grow (issue 37:
// string.rep('x', 1e9) took the server to 1 GB in one step, and held a
// real Redis unkillable for over 30 s). The key guard (keyGuardPrefix)
// bounds them on every backend; on a miniredis the environment
// (redisEnvPrefix) bounds the string and table libraries themselves, so
// a method call (s:rep(n)) is bounded there too.
const MaxMadeBytes = MaxReplyBytes

// repStoppedMarker starts the error of a string.rep over MaxMadeBytes, and
// concatStoppedMarker that of a table.concat whose result would be.
const (
	repStoppedMarker    = "lockstep: string.rep"
	concatStoppedMarker = "lockstep: table.concat"
)

// redisEnvPrefix is put before a user's script on a miniredis, on the
// script's first line so that its line numbers stay: in a block of its own
// (so the script cannot name its locals) it removes RemovedGlobals with
// rawset, past miniredis's protection of _G, and puts a string.rep and a table.concat
// bounded by MaxMadeBytes in the place of gopher-lua's, whose errors name
// the line of the script's call (level 3 in gopher-lua), not the prefix's.
var redisEnvPrefix = func() string {
	var b strings.Builder
	b.WriteString("do local rep, max = string.rep, ")
	fmt.Fprintf(&b, "%d ", MaxMadeBytes)
	b.WriteString("string.rep = function(s, n, ...) local c = tonumber(n) if (type(s) == 'string' or type(s) == 'number') and c and c > 0 and #tostring(s) * c > max then ")
	fmt.Fprintf(&b, "error('%s of ' .. string.format('%%.0f', #tostring(s) * c) .. ' bytes is more than the %d a script of your own may make', 3) ", repStoppedMarker, MaxMadeBytes)
	b.WriteString("end return rep(s, n, ...) end ")
	// table.concat likewise makes its whole result at once: 64 copies of a
	// 16 MiB string took a sandbox to 339 MB before its memory watch ran
	// (a fresh-eyes review of issue 37). Its length is summed first.
	b.WriteString("local concat = table.concat ")
	b.WriteString("table.concat = function(t, sep, i, j) if type(t) == 'table' and (sep == nil or type(sep) == 'string' or type(sep) == 'number') then ")
	b.WriteString("local n, from, to, sl = 0, tonumber(i) or 1, tonumber(j) or #t, #tostring(sep or '') ")
	b.WriteString("for k = from, to do local v = t[k] if type(v) == 'string' or type(v) == 'number' then n = n + #tostring(v) + sl end if n > max then ")
	fmt.Fprintf(&b, "error('%s of more than %d bytes is more than a script of your own may make', 3) ", concatStoppedMarker, MaxMadeBytes)
	b.WriteString("end end end return concat(t, sep, i, j) end ")
	b.WriteString("for _, name in ipairs({")
	for i, g := range RemovedGlobals {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "'%s'", g)
	}
	b.WriteString("}) do rawset(_G, name, nil) end ")
	// miniredis's guard of _G raises its errors at level 2, which in
	// gopher-lua is the guard's own line (16 of its chunk), not the
	// script's: a one-line script's removed global was reported at line
	// 16, where redis-server says 1 (a fresh-eyes review of issue 37). The
	// same texts at level 3, the script's line.
	b.WriteString("local mt = getmetatable(_G) if type(mt) == 'table' then ")
	b.WriteString("mt.__index = function(t, n) error(\"Script attempted to access nonexistent global variable '\" .. tostring(n) .. \"'\", 3) end ")
	b.WriteString("end end ")
	return b.String()
}()
