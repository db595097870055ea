package view

import (
	"slices"
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
// Replica, Nodes) with every value, Hash field name and value longer than
// MaxShownValue bytes cut to its first MaxShownValue bytes (on a
// character's start) and "…". f itself is not changed: the run keeps
// what Redis held. The page reads a frame message's violations and
// outcome, never its keys' values, so a message's size is bounded
// whatever a learner's script wrote.
func ShownFrame(f sim.Frame) sim.Frame {
	f.Keys = shownKeys(f.Keys)
	f.Replica = shownKeys(f.Replica)
	if f.Nodes != nil {
		nodes := make([][]sim.KeyState, len(f.Nodes))
		for i, n := range f.Nodes {
			nodes[i] = shownKeys(n)
		}
		f.Nodes = nodes
	}
	return f
}

// shownKeys returns keys, or a copy with long values cut (ShownFrame).
func shownKeys(keys []sim.KeyState) []sim.KeyState {
	long := func(s string) bool { return len(s) > MaxShownValue }
	var out []sim.KeyState
	for i, k := range keys {
		cut := long(k.Value)
		for _, f := range k.Fields {
			cut = cut || long(f.Name) || long(f.Value)
		}
		if !cut {
			continue
		}
		if out == nil {
			out = slices.Clone(keys)
		}
		out[i].Value = clipped(k.Value)
		if k.Fields != nil {
			out[i].Fields = make([]sim.Field, len(k.Fields))
			for j, f := range k.Fields {
				out[i].Fields[j] = sim.Field{Name: clipped(f.Name), Value: clipped(f.Value)}
			}
		}
	}
	if out == nil {
		return keys
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
