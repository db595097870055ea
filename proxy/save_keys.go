package proxy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// besideKey is a key (or channel) a script uses beside the lock, placed
// in the variant file's `keys` (docs/variant-format.md): its id there,
// its name template, its role, and the name the trace showed.
type besideKey struct {
	id, name, role, observed string
}

// placeBeside names KEYS[n] (1-based) of script body, which the trace
// showed as observed, by the role the script gives it: a channel it
// PUBLISHes on (Redisson's unlock message), or an unlock latch, a String
// it SETs with a TTL, one per unlock call (Redisson's
// redisson_unlock_latch:{KEY}:REQUEST-ID). The name template is the
// observed name with the lock key as {lock}, and for a latch its last
// `:part` (the call's id) as {unlock_id}. It returns the key's id for the
// section's keys, or false when the role or the name cannot be placed.
func (v *variantBuilder) placeBeside(body string, n int, observed string) (string, bool) {
	on := func(cmd string) bool {
		return regexp.MustCompile(`(?i)redis\.p?call\(\s*["']` + cmd + `["']\s*,\s*KEYS\[` + strconv.Itoa(n) + `\]`).MatchString(body)
	}
	k := besideKey{observed: observed}
	tmpl := strings.Replace(observed, v.key, "{lock}", 1)
	if !strings.Contains(tmpl, "{lock}") {
		return "", false
	}
	switch {
	case on("publish"):
		k.id, k.role, k.name = "channel", "channel", tmpl
	case on("set") && pxPattern.MatchString(body):
		i := strings.LastIndex(tmpl, ":")
		if i < strings.Index(tmpl, "{lock}")+len("{lock}") {
			return "", false // no id after the lock's name
		}
		k.id, k.role, k.name = "latch", "unlock-latch", tmpl[:i+1]+"{unlock_id}"
	default:
		return "", false
	}
	for _, b := range v.beside {
		if b.id == k.id {
			return k.id, b.name == k.name
		}
	}
	v.beside = append(v.beside, k)
	return k.id, true
}

// writeKeys writes the variant file's `keys` section.
func (v *variantBuilder) writeKeys(b *strings.Builder) {
	if len(v.beside) == 0 {
		return
	}
	b.WriteString("keys:\n")
	for _, k := range v.beside {
		fmt.Fprintf(b, "  # observed as %s\n", strconv.Quote(k.observed))
		typ := ""
		if k.role == "unlock-latch" {
			typ = ", type: string"
		}
		fmt.Fprintf(b, "  %s: {name: %s, role: %s%s}\n", k.id, strconv.Quote(k.name), k.role, typ)
	}
}
