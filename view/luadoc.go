package view

import (
	"regexp"
	"strings"

	"lockstep/sim"
)

var argDoc = regexp.MustCompile(`^--\s*(KEYS|ARGV)\[(\d+)\]\s+(.*)$`)

// ScriptDocs reads a script's header comments "-- ARGV[2]  lease in ms".
// luaDoc is a script's note on one of its KEYS or ARGV in t's language: the
// scripts are teaching material and keep their English comments, and the
// message files translate each comment by its English text ("Lua: " + it).
func LuaDoc(t Texts, en string) string {
	if en == "" || t.Locale() == sim.English {
		return en
	}
	if s := t.Maybe("Lua: " + en); s != "" {
		return s
	}
	return en
}

func ScriptDocs(src string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(src, "\n") {
		if m := argDoc.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out[m[1]+m[2]] = strings.TrimSpace(m[3])
		}
	}
	return out
}
