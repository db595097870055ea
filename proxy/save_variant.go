package proxy

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// setNXSource is the acquire script of a lock taken by a plain
// `SET key token NX PX ms` command (redsync, redis-py): the same command,
// so the replay's replies are the ones Redis gave.
const setNXSource = "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])"

// section is a script section of the variant file being written.
type section struct {
	from    string // where it came from, for the file's comment
	sha     string
	source  string
	keys    []string
	argv    []string // YAML items: a value name or {literal: "..."}
	replies map[string]string
	mapped  bool // keys and argv filled in from a call that worked
}

// variantBuilder collects the variant file from the lock commands of a
// trace, in order.
type variantBuilder struct {
	key       string
	scripts   map[string]*Script
	missing   func(string, ...any)
	lockType  string // "string" or "hash"
	layout    string
	acq, rel  *section
	renewSeen bool
	laneOwner map[string]string // the owner id each lane last acquired with
	beside    []besideKey       // keys the scripts use beside the lock (placeBeside)
	said      map[string]bool
}

func (v *variantBuilder) once(id, f string, a ...any) {
	if v.said == nil {
		v.said = map[string]bool{}
	}
	if !v.said[id] {
		v.said[id] = true
		v.missing(f, a...)
	}
}

// acquire adds an acquire call with its outcome and returns its lease in
// ms (0 unknown).
func (v *variantBuilder) acquire(c call, out string) int64 {
	cmd := c.e.Command.cmd
	if c.after.Present() && v.lockType == "" {
		v.lockType = c.after.Type
		if v.lockType == "hash" {
			v.layout = "field-per-owner"
			if _, ok := c.after.Fields["owner"]; ok {
				v.layout = "owner-and-count"
			}
		}
	}
	won := out == "ACQUIRED" || out == "REENTERED"
	if won {
		if v.laneOwner == nil {
			v.laneOwner = map[string]string{}
		}
		v.laneOwner[c.e.Lane] = ownerOf(c.after)
	}
	if nx, lease := cmd.setNX(); nx {
		if v.acq == nil {
			v.acq = &section{from: "the SET ... NX PX command the clients sent", source: setNXSource, keys: []string{"lock"},
				argv: []string{"owner", "lease_ms"}, replies: map[string]string{"OK": "ACQUIRED", "nil": "BUSY"}, mapped: true}
		} else if v.acq.source != setNXSource {
			v.once("two-acquires", "the clients acquired both with SET NX and with a script; the variant keeps the first")
		}
		return lease
	}
	if cmd.script == nil {
		v.once("sha:"+cmd.sha, "the acquire script %s was run by EVALSHA but its body was never seen (loaded before the proxy started?); run it once with EVAL or SCRIPT LOAD through the proxy", cmd.sha)
		return max(c.after.PTTL, 0)
	}
	if v.acq == nil {
		v.acq = &section{from: "script " + cmd.script.SHA, sha: cmd.script.SHA, source: cmd.script.Body, replies: map[string]string{}}
	}
	if v.acq.sha != cmd.script.SHA {
		v.once("two-acquires", "the clients acquired with more than one script; the variant keeps the first (%s)", v.acq.sha)
		return max(c.after.PTTL, 0)
	}
	lease := int64(0)
	if won && !v.acq.mapped {
		lease = v.mapArgs(v.acq, cmd, ownerOf(c.after), c.after)
	} else if v.acq.mapped {
		// What the client sent, not the PTTL read after (29995 of a
		// 30000 ms lease re-entered).
		lease = leaseArg(v.acq, cmd)
	}
	v.reply(v.acq, c.e.Command.value, "", out, true)
	if lease == 0 {
		lease = max(c.after.PTTL, 0)
	}
	return lease
}

// release adds a release call with its outcome, on behalf of lane (whose
// owner id it sent).
func (v *variantBuilder) release(c call, out, lane string) {
	cmd := c.e.Command.cmd
	owner := v.laneOwner[lane]
	if cmd.script == nil {
		if cmd.sha != "" {
			v.once("sha:"+cmd.sha, "the release script %s was run by EVALSHA but its body was never seen (loaded before the proxy started?); run it once with EVAL or SCRIPT LOAD through the proxy", cmd.sha)
			return
		}
		v.once("bare-"+cmd.name, "the clients released with a bare %s, which the variant format writes as a script: the variant's release runs %s on the lock key", cmd.name, cmd.name)
		if v.rel == nil {
			v.rel = &section{from: "the " + cmd.name + " command the clients sent", source: "return redis.call('" + cmd.name + "', KEYS[1])",
				keys: []string{"lock"}, replies: map[string]string{}, mapped: true}
		}
		v.reply(v.rel, c.e.Command.value, owner, out, false)
		return
	}
	if v.rel == nil {
		v.rel = &section{from: "script " + cmd.script.SHA, sha: cmd.script.SHA, source: cmd.script.Body, replies: map[string]string{}}
	}
	if v.rel.sha != cmd.script.SHA {
		v.once("two-releases", "the clients released with more than one script; the variant keeps the first (%s)", v.rel.sha)
		return
	}
	if !v.rel.mapped && owner != "" {
		v.mapArgs(v.rel, cmd, owner, LockState{})
	}
	v.reply(v.rel, c.e.Command.value, owner, out, false)
}

// mapArgs names a script call's KEYS and ARGV by the variant format's
// value names: the lock key, the owner id, the lease; any other ARGV is a
// literal, any other key cannot be placed (said as missing). It returns
// the lease in ms found among ARGV (0 none).
func (v *variantBuilder) mapArgs(s *section, cmd command, owner string, after LockState) int64 {
	s.mapped = true
	for i, k := range cmd.keys {
		if k == v.key {
			s.keys = append(s.keys, "lock")
			continue
		}
		if id, ok := v.placeBeside(cmd.script.Body, i+1, k); ok {
			s.keys = append(s.keys, id)
			continue
		}
		v.missing("KEYS[%d] of %s is %q, a key beside the lock: the variant format needs its name template and role (channel, unlock-latch), which the trace does not show; add it under `keys`", i+1, s.from, k)
		s.keys = append(s.keys, "MISSING-KEY-"+strconv.Itoa(i+1))
	}
	lease := int64(0)
	for i, a := range cmd.args[min(3+len(cmd.keys), len(cmd.args)):] {
		n, err := strconv.ParseInt(a, 10, 64)
		switch {
		case a == owner && owner != "":
			s.argv = append(s.argv, "owner")
		case err == nil && after.PTTL > 0 && n >= after.PTTL && n <= after.PTTL+2000 && lease == 0:
			s.argv = append(s.argv, "lease_ms")
			lease = n
		case isCut(a):
			// The trace kept its first maxTracedText bytes: a literal
			// of them would replay a value the client never sent.
			v.missing("ARGV[%d] of %s was %d bytes, longer than the trace keeps (%d): the variant has MISSING-ARGV-%d in its place; write its value there", i+1, s.from, cutLen(a), maxTracedText, i+1)
			s.argv = append(s.argv, "{literal: "+strconv.Quote("MISSING-ARGV-"+strconv.Itoa(i+1))+"}")
		default:
			s.argv = append(s.argv, "{literal: "+strconv.Quote(a)+"}")
		}
	}
	return lease
}

// reply records that reply val of section s meant outcome out.
func (v *variantBuilder) reply(s *section, val Value, owner, out string, acquire bool) {
	if out == "TIMED_OUT" {
		return // the client never saw it
	}
	p := pattern(val, owner, acquire)
	if acquire && v.lockType == "hash" && (out == "ACQUIRED" || out == "REENTERED") {
		out = "held"
	}
	old, ok := s.replies[p]
	switch {
	case !ok || old == out:
		s.replies[p] = out
	case !acquire && (old == "RELEASED" || old == "STILL_HELD" || old == "released-or-held") && (out == "RELEASED" || out == "STILL_HELD"):
		s.replies[p] = "released-or-held"
	default:
		v.once("conflict:"+p, "the reply %s of %s meant %s once and %s another time; the variant keeps %s", p, s.from, old, out, old)
	}
}

// pattern is a reply's pattern in a variant's reply map.
func pattern(v Value, owner string, acquire bool) string {
	switch {
	case v.Null || (v.Kind == '#' && v.Int == 0):
		return "nil"
	case v.IsError():
		return "error"
	case v.Kind == ':' || v.Kind == '#':
		return strconv.FormatInt(v.Int, 10)
	case !acquire && v.Str == owner && owner != "":
		return "owner"
	case v.Kind == '+' && isWord(v.Str):
		return v.Str
	}
	return strconv.Quote(v.Str)
}

func isWord(s string) bool {
	if s == "" || s == "nil" || s == "false" || s == "integer" || s == "string" || s == "owner" || s == "error" {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == '_') {
			return false
		}
	}
	return true
}

// missingReleaseSource is the release script of a saved variant whose
// clients released with nothing the proxy saw: it answers an error that
// says so (a step error when a lesson's step releases).
const missingReleaseSource = "return redis.error_reply('lockstep: the proxy saw no release script of these clients; write it in this variant file')"

// noReleaseNote is the missing note of a saved variant whose clients
// released with nothing the proxy saw.
const noReleaseNote = "no release was seen: the variant's release is a placeholder that fails with this note; write the clients' release script there"

// withBusyIntegers returns s with its integer replies that all meant BUSY
// written as the pattern `integer` (any integer but those listed): a
// script that answers a busy lock with its PTTL (Redisson's) answered
// 30000 and 29994 in one trace, and a replay answers another. 0, 1 and -2
// keep their own entries, and so does every integer when one meant
// something else. s itself is not changed.
func (s *section) withBusyIntegers() *section {
	var busy []string
	for p, out := range s.replies {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n == 0 || n == 1 || n == -2 {
			continue
		}
		if out != "BUSY" {
			return s
		}
		busy = append(busy, p)
	}
	if old, ok := s.replies["integer"]; len(busy) == 0 || ok && old != "BUSY" {
		return s
	}
	c := *s
	c.replies = maps.Clone(s.replies)
	for _, p := range busy {
		delete(c.replies, p)
	}
	c.replies["integer"] = "BUSY"
	return &c
}

// leaseArg is the lease in ms that cmd sent where section s's argv says
// lease_ms (0 when s names none, or the value is not a number).
func leaseArg(s *section, cmd command) int64 {
	i := slices.Index(s.argv, "lease_ms")
	at := 3 + len(cmd.keys) + i
	if i < 0 || at >= len(cmd.args) {
		return 0
	}
	n, err := strconv.ParseInt(cmd.args[at], 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// file writes the variant file.
func (v *variantBuilder) file(id string) []byte {
	var missing []string
	if v.acq == nil {
		missing = append(missing, "no acquire was seen: the variant has no acquire section")
	}
	acq, rel := v.acq, v.rel
	if rel == nil {
		// The variant format needs a release: a placeholder that says
		// what is missing, so that the file loads and a lesson whose
		// clients never released replays; a step that releases fails
		// with its words instead of guessing a script.
		missing = append(missing, noReleaseNote)
		// Its one reply pattern is a string the script never answers:
		// the format needs a map, and the error it answers is read by
		// none, so a step that releases fails with the note.
		rel = &section{from: "no release the proxy saw: a placeholder", source: missingReleaseSource, keys: []string{"lock"},
			replies: map[string]string{strconv.Quote("placeholder"): "NOT_OWNER"}}
	}
	if acq != nil {
		acq = acq.withBusyIntegers()
	}
	var b strings.Builder
	b.Write(header("A variant saved by `lockstep proxy` from the commands and scripts it observed.", missing))
	fmt.Fprintf(&b, "name: observed-%s\n", id)
	b.WriteString("source: lockstep proxy trace\n")
	switch v.lockType {
	case "hash":
		fmt.Fprintf(&b, "lock: {type: hash, layout: %s}\nowner: grant-token\nreentry: redis\n", v.layout)
	default:
		b.WriteString("lock: {type: string}\nowner: grant-token\nreentry: none\n")
	}
	v.writeKeys(&b)
	for _, part := range []struct {
		name string
		s    *section
	}{{"acquire", acq}, {"release", rel}} {
		if part.s == nil {
			continue
		}
		s := part.s
		fmt.Fprintf(&b, "%s:\n  # from %s\n  source: |\n", part.name, s.from)
		for _, line := range strings.Split(strings.TrimRight(s.source, "\n"), "\n") {
			b.WriteString("    " + strings.ReplaceAll(line, "\t", "  ") + "\n")
		}
		fmt.Fprintf(&b, "  keys: [%s]\n", strings.Join(s.keys, ", "))
		if len(s.argv) > 0 {
			fmt.Fprintf(&b, "  argv: [%s]\n", strings.Join(s.argv, ", "))
		}
		pats := make([]string, 0, len(s.replies))
		for p := range s.replies {
			pats = append(pats, p)
		}
		sort.Strings(pats)
		items := make([]string, len(pats))
		for i, p := range pats {
			items[i] = p + ": " + s.replies[p]
		}
		fmt.Fprintf(&b, "  replies: {%s}\n", strings.Join(items, ", "))
	}
	return []byte(b.String())
}
