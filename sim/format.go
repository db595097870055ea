package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// FormatFrames renders frames in the compact text form that golden files pin
// and the terminal shows, with narration and violation details in locale l.
func FormatFrames(frames []Frame, l Locale) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(FormatFrame(f, l))
	}
	return b.String()
}

// FormatFrame renders one frame in the compact text form (several lines, each
// ending in a newline).
func FormatFrame(f Frame, l Locale) string {
	var b strings.Builder
	if f.Step == nil {
		fmt.Fprintf(&b, "== start · t=%dms\n", f.TimeMS)
	} else {
		fmt.Fprintf(&b, "== step %d · t=%dms · %s => %s\n", f.Index, f.TimeMS, FormatStep(*f.Step), f.Outcome)
	}
	for _, c := range f.Calls {
		fmt.Fprintf(&b, "   call  %s KEYS%v ARGV%v -> %s => %s", c.Script, c.Keys, c.Args, c.Reply, c.Outcome)
		if c.AsBoolean != "" {
			fmt.Fprintf(&b, " (as Boolean: %s)", c.AsBoolean)
		}
		b.WriteString("\n")
	}
	for _, k := range f.Keys {
		fmt.Fprintf(&b, "   key   %s\n", formatKey(k))
	}
	for _, k := range f.Replica {
		fmt.Fprintf(&b, "   replica %s\n", formatKey(k))
	}
	for _, a := range f.Actors {
		fmt.Fprintf(&b, "   actor %s\n", formatActor(a))
	}
	for _, lv := range f.Locks {
		fmt.Fprintf(&b, "   lock  %s %s count=%d", lv.Name, lv.State, lv.Count)
		if lv.Owner != "" {
			fmt.Fprintf(&b, " owner=%s holders=%v", lv.Owner, lv.Holders)
		}
		if t := lv.Transition; t != nil {
			fmt.Fprintf(&b, " (%s -> %s: %s)", t.From, t.To, t.ID)
		}
		b.WriteString("\n")
	}
	for _, v := range f.Violations {
		fmt.Fprintf(&b, "   VIOLATION %s %v: %s\n", v.Name, v.Actors, v.Detail.In(l))
	}
	if c := f.Check; c != nil {
		var parts []string
		if c.Expect != "" {
			parts = append(parts, "expect "+string(c.Expect))
		}
		if len(c.ExpectViolations) > 0 {
			parts = append(parts, "expect_violation "+strings.Join(c.ExpectViolations, ","))
		}
		verdict := "ok"
		if !c.OK {
			verdict = fmt.Sprintf("FAILED (got %s, missing violations %v)", c.Got, c.Missing)
		}
		fmt.Fprintf(&b, "   check %s: %s\n", strings.Join(parts, ", "), verdict)
	}
	if s := f.Say.In(l); s != "" {
		fmt.Fprintf(&b, "   say   %s\n", strings.ReplaceAll(strings.TrimSpace(s), "\n", " "))
	}
	return b.String()
}

// FormatStep renders a step as one line, e.g. "A acquire lock=order:42 lease=30000ms".
func FormatStep(s StepInfo) string {
	parts := []string{}
	if s.Actor != "" {
		parts = append(parts, s.Actor)
	}
	parts = append(parts, string(s.Do))
	if s.Lock != "" {
		parts = append(parts, "lock="+s.Lock)
	}
	if s.LeaseMS > 0 {
		parts = append(parts, "lease="+strconv.FormatInt(s.LeaseMS, 10)+"ms")
	}
	if s.ByMS > 0 {
		parts = append(parts, "by="+strconv.FormatInt(s.ByMS, 10)+"ms")
	}
	if s.Do == ActWrite {
		parts = append(parts, "value="+strconv.Quote(s.Value))
	}
	if s.Child != "" {
		parts = append(parts, "child="+s.Child, "context="+s.Context)
	}
	if s.ReplyLost {
		parts = append(parts, "reply_lost")
	}
	if s.Unreplicated {
		parts = append(parts, "unreplicated")
	}
	return strings.Join(parts, " ")
}

func formatKey(k KeyState) string {
	switch k.Type {
	case TypeNone:
		return k.Name + " (none)"
	case TypeHash:
		fs := make([]string, len(k.Fields))
		for i, f := range k.Fields {
			fs[i] = f.Name + "=" + f.Value
		}
		return fmt.Sprintf("%s hash {%s} pttl=%dms", k.Name, strings.Join(fs, " "), k.PTTL)
	}
	return fmt.Sprintf("%s %s %q pttl=%dms", k.Name, k.Type, k.Value, k.PTTL)
}

func formatActor(a ActorView) string {
	s := fmt.Sprintf("%s %s ctx=%s inst=%s", a.ID, a.Status, a.Context, a.Instance)
	if a.RequestID != "" {
		s += " req=" + a.RequestID
	}
	if a.Parent != "" {
		s += fmt.Sprintf(" forked-from=%s(%s)", a.Parent, a.ForkMode)
	}
	for _, h := range a.Holds {
		s += fmt.Sprintf(" | %s token=%s count=%d hold#%d", h.Lock, h.Token, h.Count, h.Hold)
		if h.Fence > 0 {
			s += fmt.Sprintf(" fence=%d", h.Fence)
		}
		if h.RenewAtMS > 0 {
			s += fmt.Sprintf(" renew@%dms", h.RenewAtMS)
		}
		if h.Pending {
			s += " (DEL pending)"
		}
		if !h.InRedis {
			s += " (not in Redis)"
		}
	}
	return s
}
