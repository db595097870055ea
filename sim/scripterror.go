package sim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ScriptError is a script that answered a Redis error, which its reply map
// does not read as an outcome. A Lua runtime error (a script that compares
// nil with a number) names the script's own line: Where is the .lua file
// (or, for a script written inline, the variant file) and the line there,
// read from the error both Redis and gopher-lua put the line in.
type ScriptError struct {
	Script string
	Reply  string // the error reply as the server sent it
	// Where is FILE:LINE of the Lua error in the user's file, "" when the
	// reply names no line (an error the script returned itself) or the
	// script is not a user's.
	Where string
	// Detail is the Lua error without the server's wrapping (line, script
	// hash, traceback), "" when Where is.
	Detail string
}

// luaLine finds the line and message of a Lua runtime error in a server's
// error reply. redis-server 7 writes "ERR user_script:7: attempt to ...
// script: <sha1>, on @user_script:7."; miniredis (gopher-lua) writes "ERR
// Error compiling script (new function): <string>:7: attempt to ... stack
// traceback: ...".
var (
	redisLuaError  = regexp.MustCompile(`^(?:ERR )?user_script:(\d+): (.*?)(?: script: [0-9a-f]{40}, on @user_script:\d+\.?)?$`)
	gopherLuaError = regexp.MustCompile(`^(?:ERR )?Error compiling script \(new function\): (?:<string>)?:(\d+): (.*?)(?:\s+stack traceback:.*)?$`)
)

// newScriptError is the ScriptError of script s answering reply.
func newScriptError(s *Script, reply string) *ScriptError {
	e := &ScriptError{Script: s.Name, Reply: reply}
	if !s.Custom {
		return e
	}
	flat := strings.Join(strings.Fields(reply), " ")
	for _, re := range []*regexp.Regexp{redisLuaError, gopherLuaError} {
		m := re.FindStringSubmatch(flat)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return e
		}
		file := s.file
		if file == "" {
			file = s.Name
		}
		e.Where, e.Detail = fmt.Sprintf("%s:%d", file, s.line0+n), m[2]
		return e
	}
	return e
}

func (e *ScriptError) Error() string {
	if e.Where != "" {
		return fmt.Sprintf("%s: script %s raised a Lua error: %s", e.Where, e.Script, e.Detail)
	}
	return fmt.Sprintf("%s replied with an error: %s", e.Script, e.Reply)
}

// Message makes ScriptError a Coded error: variant.script-error, or
// variant.lua-runtime-error (Where, Script, Detail) when the reply names
// the script's line.
func (e *ScriptError) Message() Msg {
	if e.Where != "" {
		for _, b := range scriptBounds {
			if strings.Contains(e.Detail, b.marker) {
				return M(b.code, "Where", e.Where, "Script", e.Script, "Detail", e.Detail)
			}
		}
		return M("variant.lua-runtime-error", "Where", e.Where, "Script", e.Script, "Detail", e.Detail)
	}
	return M("variant.script-error", "Script", e.Script, "Reply", e.Reply)
}

// scriptBounds are the starts of the errors package backend's key guard
// raises at a user's script's line when a call passes one of its bounds
// (backend.MaxScriptWriteBytes, MaxMadeBytes and MaxScriptMadeBytes,
// MaxPatternWork), and the message that says which in the reader's
// language; the error's own text, which names the number, follows it.
var scriptBounds = []struct{ marker, code string }{
	{"lockstep: writes:", "variant.script-writes"},
	{"lockstep: pattern:", "variant.script-pattern"},
	{"lockstep: string.rep", "variant.script-makes"},
	{"lockstep: table.concat", "variant.script-makes"},
	{"lockstep: string.gsub", "variant.script-makes"},
	{"lockstep: string.format", "variant.script-makes"},
	{"lockstep: encode:", "variant.script-makes"},
	{"lockstep: made:", "variant.script-makes"},
	{"lockstep: time:", "variant.script-time"},
}
