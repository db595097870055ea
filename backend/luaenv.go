package backend

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
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
	removed := make([]string, len(RemovedGlobals))
	for i, g := range RemovedGlobals {
		removed[i] = "'" + g + "'"
	}
	return renderLua(template.Must(template.New("env.lua").Option("missingkey=error").Parse(envText)), map[string]string{
		"MaxMade": fmt.Sprint(MaxMadeBytes), "RepStopped": repStoppedMarker, "ConcatStopped": concatStoppedMarker,
		"Removed": "{" + strings.Join(removed, ", ") + "}",
	})
}()

// envText is Redis's environment on a miniredis (redisEnvPrefix), a
// text/template whose substitutions the file's opening comment lists.
//
//go:embed lua/env.lua
var envText string
