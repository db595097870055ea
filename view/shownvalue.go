package view

import (
	"unicode/utf8"

	"lockstep/sim"
)

// MaxShownValue bounds the bytes of a key's value (a String's value, a
// Hash field's name or value, and what it was before the step) that a
// frame draws: 256 bytes, more than any key a lock keeps (a token, an
// owner id, a count). The rest is said as a count ("… N bytes more",
// message ValueMore). A step reads a value of up to backend.MaxReplyBytes,
// and a frame draws every key of the run, so without it a frame's size
// grew with what a learner's script wrote (frames of 37 MB at step 20, a
// fresh-eyes attack on issue 37).
const MaxShownValue = 256

// MaxShownKeys bounds the keys of one list (the run's keys, a replica's,
// a node's) that a frame draws: the frame's lock keys and the others in
// order up to 32, the rest said as a count ("+ N more keys", message
// KeysMore). MaxShownFields bounds the fields of one Hash it draws, 16,
// the rest likewise (FieldsMore). A lock keeps a few keys of a few fields;
// a learner's script may write thousands of small fields within
// backend.MaxRunWriteBytes, and every frame draws the run's keys, so
// without them a frame grew to megabytes (frames of 3.1, 6.1 and 9.2 MB,
// a fresh-eyes re-check of issue 37). With MaxShownValue a frame's keys
// are bounded whatever a script wrote.
const (
	MaxShownKeys   = 32
	MaxShownFields = 16
)

// shown returns s as a frame draws it: all of it up to MaxShownValue
// bytes, else its first MaxShownValue bytes (cut on a character's start)
// and how many bytes more it holds, in t's language.
func shown(t Texts, s string) string {
	if len(s) <= MaxShownValue {
		return s
	}
	c := clipped(s)
	cut := len(c) - len("…")
	return c[:cut] + " " + t.T("ValueMore", "N", len(s)-cut)
}

// ShownFrame returns f as a frame message carries it: its keys (Keys,
// Replica, Nodes) as the Redis panel draws them, the lock keys and the
// others in order up to MaxShownKeys a list, each Hash's first
// MaxShownFields fields, and every value, field name and value longer
// than MaxShownValue bytes cut to its first MaxShownValue bytes (on a
// character's start) and "…". f itself is not changed: the run keeps
// what Redis held. The page reads a frame message's violations and
// outcome, never its keys' values, so a message's size is bounded
// whatever a learner's script wrote.
func ShownFrame(f sim.Frame) sim.Frame {
	locks := make(map[string]bool, len(f.Locks))
	for _, l := range f.Locks {
		locks[l.Key] = true
	}
	f.Keys = shownKeys(f.Keys, locks)
	f.Replica = shownKeys(f.Replica, locks)
	if f.Nodes != nil {
		nodes := make([][]sim.KeyState, len(f.Nodes))
		for i, n := range f.Nodes {
			nodes[i] = shownKeys(n, locks)
		}
		f.Nodes = nodes
	}
	return f
}

// shownKeys returns keys, or a copy with what ShownFrame leaves out
// taken out and long values cut.
func shownKeys(keys []sim.KeyState, locks map[string]bool) []sim.KeyState {
	long := func(s string) bool { return len(s) > MaxShownValue }
	cut := len(keys) > MaxShownKeys
	for _, k := range keys {
		cut = cut || long(k.Value) || len(k.Fields) > MaxShownFields
		for _, f := range k.Fields {
			cut = cut || long(f.Name) || long(f.Value)
		}
	}
	if !cut {
		return keys
	}
	out := make([]sim.KeyState, 0, min(len(keys), MaxShownKeys+len(locks)))
	for _, k := range keys {
		if len(out) >= MaxShownKeys && !locks[k.Name] {
			continue
		}
		k.Value = clipped(k.Value)
		if k.Fields != nil {
			fields := make([]sim.Field, min(len(k.Fields), MaxShownFields))
			for j := range fields {
				fields[j] = sim.Field{Name: clipped(k.Fields[j].Name), Value: clipped(k.Fields[j].Value)}
			}
			k.Fields = fields
		}
		out = append(out, k)
	}
	return out
}

// clipped is s cut to MaxShownValue bytes and "…" when longer.
func clipped(s string) string {
	if len(s) <= MaxShownValue {
		return s
	}
	cut := MaxShownValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
