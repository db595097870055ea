package proxy

import (
	"regexp"
	"strings"
)

// keysLoopPattern finds a loop over the elements of KEYS, `for i, key in
// ipairs(KEYS) do`, and names its value variable: node-redlock's scripts
// call Redis on `key`, never on KEYS[1] itself.
var keysLoopPattern = regexp.MustCompile(`for\s+\w+\s*,\s*(\w+)\s+in\s+ipairs\(\s*KEYS\s*\)`)

// keyCalls returns the Redis commands (upper case) body calls with a key
// as first argument: KEYS[i] itself (callPattern) or a variable a loop
// over KEYS binds to each element.
func keyCalls(body string) map[string]bool {
	calls := map[string]bool{}
	for _, m := range callPattern.FindAllStringSubmatch(body, -1) {
		calls[strings.ToUpper(m[1])] = true
	}
	for _, loop := range keysLoopPattern.FindAllStringSubmatch(body, -1) {
		onVar := regexp.MustCompile(`(?i)redis\.p?call\(\s*["'](\w+)["']\s*,\s*` + regexp.QuoteMeta(loop[1]) + `\s*[,)]`)
		for _, m := range onVar.FindAllStringSubmatch(body, -1) {
			calls[strings.ToUpper(m[1])] = true
		}
	}
	return calls
}

// setIfAbsent reports whether calls write a String lock only where none
// is: SET ... NX, or a SET guarded by EXISTS (node-redlock's lock
// script); a SET that is not (node-redlock's extend) renews.
func setIfAbsent(body string, calls map[string]bool) bool {
	return calls["SET"] && (nxPattern.MatchString(body) || calls["EXISTS"])
}

// ranNothing reports whether c's reply says nothing ran: EVALSHA of a
// script Redis had not cached (NOSCRIPT), which clients follow with EVAL
// or SCRIPT LOAD. The lock state read after it may already show the
// command that followed (the proxy reads lock keys after the reply, while
// the client goes on), so the lock reader skips it (a hold or a release
// would be put on the wrong command) and SaveLesson leaves it out.
func ranNothing(c *CommandEvent) bool {
	return c.value.IsError() && strings.HasPrefix(c.value.Str, "NOSCRIPT")
}
