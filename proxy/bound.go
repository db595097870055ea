package proxy

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxTracedText bounds each string an event keeps (bytes): a command's
// traced arguments and its reply text, the arguments and reply the
// analyzer and SaveLesson read, a lock state's Value and its Fields'
// names and values. A longer one keeps its first maxTracedText bytes (cut
// at a character's start) and a marker saying how many were cut
// (cutText). Lock tokens (a UUID, a 40-character id, Redisson's
// "uuid:thread") are far shorter and kept whole, so findings and saved
// lessons still compare them; two values over it that share their first
// 1 KiB and their length compare equal. Before, 40 SETs of a 10 MB value
// on a lock key grew the process by 0.8 GB: every event kept the value
// (its arguments, the analyzer's copy, the lock state read after it).
const maxTracedText = 1 << 10

// cutRoom is how much longer than maxTracedText a string may be and be
// kept whole: room for the marker, so a cut string is not cut again.
const cutRoom = 64

// cutMark opens the marker a cut string ends with: "…(cut: N more bytes)".
const cutMark = "…(cut: "

// cutText is s, or when it is longer than maxTracedText+cutRoom bytes its
// first maxTracedText bytes (a new string: the long one is not kept
// alive) and the marker.
func cutText(s string) string {
	if len(s) <= maxTracedText+cutRoom {
		return s
	}
	n := maxTracedText
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMark + strconv.Itoa(len(s)-n) + " more bytes)"
}

// isCut reports whether s was cut by cutText.
func isCut(s string) bool {
	return len(s) > maxTracedText && len(s) <= maxTracedText+cutRoom && strings.Contains(s[len(s)/2:], cutMark) &&
		strings.HasSuffix(s, " more bytes)")
}

// cutLen is the length in bytes of the string s was cut from (isCut).
func cutLen(s string) int {
	i := strings.LastIndex(s, cutMark)
	n, _ := strconv.Atoi(strings.TrimSuffix(s[i+len(cutMark):], " more bytes)"))
	return i + n
}

// long reports whether cutText would cut s.
func long(s string) bool { return len(s) > maxTracedText+cutRoom }

// cutStrings is ss with its long strings cut: ss itself when none is,
// else a new slice (ss may be shared).
func cutStrings(ss []string) []string {
	if !slices.ContainsFunc(ss, long) {
		return ss
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = cutText(s)
	}
	return out
}

// cutValue is v with its long strings cut, at any depth: v itself when
// none is, else a copy.
func cutValue(v Value) Value {
	if !valueLong(v) {
		return v
	}
	v.Str = cutText(v.Str)
	if v.Elems != nil {
		elems := make([]Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = cutValue(e)
		}
		v.Elems = elems
	}
	return v
}

// valueLong reports whether v holds a string cutText would cut.
func valueLong(v Value) bool {
	return long(v.Str) || slices.ContainsFunc(v.Elems, valueLong)
}

// cutCommand is c with its long arguments cut (a script's body among
// them: c.script keeps it whole): c's slices are copied, not written to,
// and its keys are a copy (they alias its arguments' array, which would
// keep the long ones alive).
func cutCommand(c command) command {
	if !slices.ContainsFunc(c.args, long) {
		return c
	}
	c.args = cutStrings(c.args)
	c.keys = cutStrings(slices.Clone(c.keys))
	return c
}

// cutLock is st with its long Value and Fields cut; Fields is a new map
// when any is (the analyzer may share the old one).
func cutLock(st LockState) LockState {
	st.Value = cutText(st.Value)
	for f, v := range st.Fields {
		if long(f) || long(v) {
			fields := make(map[string]string, len(st.Fields))
			for f, v := range st.Fields {
				fields[cutText(f)] = cutText(v)
			}
			st.Fields = fields
			break
		}
	}
	return st
}

// boundEvent cuts what e keeps to maxTracedText bytes a string (trace.add,
// before it stores e): its command's traced arguments and reply, the
// arguments, reply and queued commands kept for the analyzer and
// SaveLesson, its lock state. e's Command is written to (its maker's, not
// yet shared); its Lock is replaced when cut.
func boundEvent(e *Event) {
	if c := e.Command; c != nil {
		c.Args = cutStrings(c.Args)
		c.Reply = cutText(c.Reply)
		c.value = cutValue(c.value)
		c.cmd = cutCommand(c.cmd)
		for i := range c.tx {
			c.tx[i].cmd = cutCommand(c.tx[i].cmd)
			c.tx[i].reply = cutValue(c.tx[i].reply)
		}
	}
	if e.Lock != nil {
		if st := cutLock(*e.Lock); st.Value != e.Lock.Value || !maps.Equal(st.Fields, e.Lock.Fields) {
			e.Lock = &st
		}
	}
}
