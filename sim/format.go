package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Printer renders frames in the compact text form that golden files pin and
// the terminal shows: narration in Locale, and violation details rendered by
// Renderer in Locale, or as their message codes when Renderer is nil (golden
// files pin the codes; the catalogue's tests pin the words).
type Printer struct {
	Locale   Locale
	Renderer Renderer
}

// FormatFrames renders frames with narration in locale l and violations as
// message codes: Printer{Locale: l}.Frames.
func FormatFrames(frames []Frame, l Locale) string { return Printer{Locale: l}.Frames(frames) }

// FormatFrame renders one frame as FormatFrames does.
func FormatFrame(f Frame, l Locale) string { return Printer{Locale: l}.Frame(f) }

// Frames renders frames one after the other.
func (p Printer) Frames(frames []Frame) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(p.Frame(f))
	}
	return b.String()
}

// Frame renders one frame in the compact text form (several lines, each
// ending in a newline).
func (p Printer) Frame(f Frame) string {
	l := p.Locale
	var b strings.Builder
	if f.Step == nil {
		fmt.Fprintf(&b, "== start · t=%dms\n", f.TimeMS)
	} else {
		fmt.Fprintf(&b, "== step %d · t=%dms · %s => %s\n", f.Index, f.TimeMS, FormatStep(*f.Step), f.Outcome)
	}
	for _, c := range f.Calls {
		if c.Node > 0 {
			fmt.Fprintf(&b, "   call  node %d %s KEYS%v ARGV%v -> %s => %s", c.Node, c.Script, c.Keys, c.Args, c.Reply, c.Outcome)
			b.WriteString("\n")
			continue
		}
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
	for i, keys := range f.Nodes {
		for _, k := range keys {
			fmt.Fprintf(&b, "   node %d %s\n", i+1, formatKey(k))
		}
	}
	for _, a := range f.Actors {
		fmt.Fprintf(&b, "   actor %s\n", formatActor(a, len(f.Nodes) > 0))
	}
	for _, lb := range f.Lost {
		// A belief a renewal's LOST ended (Frame.Lost).
		fmt.Fprintf(&b, "   lost  %s %s token=%s grant#%d\n", lb.Actor, lb.Lock, lb.Token, lb.Hold)
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
		fmt.Fprintf(&b, "   VIOLATION %s %v: %s\n", v.Name, v.Actors, p.msg(v.Detail))
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
			var why []string
			if c.Expect != "" && c.Got != c.Expect {
				why = append(why, fmt.Sprintf("want %s, got %s", c.Expect, c.Got))
			}
			if len(c.Missing) > 0 {
				why = append(why, fmt.Sprintf("missing violations %v", c.Missing))
			}
			verdict = "FAILED (" + strings.Join(why, "; ") + ")"
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
	if s.Nested {
		parts = append(parts, "nested")
	}
	if s.ReplyLost {
		parts = append(parts, "reply_lost")
	}
	if s.Unreplicated {
		parts = append(parts, "unreplicated")
	}
	if s.Node > 0 {
		parts = append(parts, "node="+strconv.Itoa(s.Node))
	}
	if len(s.Unreachable) > 0 {
		parts = append(parts, "unreachable="+fmt.Sprint(s.Unreachable))
	}
	if s.KeepPartial {
		parts = append(parts, "keep_partial")
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

// formatActor is one actor's line; onNodes: the frame is of a lesson with
// nodes, where a hold is in Redis when a majority of the nodes keeps it.
func formatActor(a ActorView, onNodes bool) string {
	s := fmt.Sprintf("%s %s ctx=%s inst=%s", a.ID, a.Status, a.Context, a.Instance)
	if a.RequestID != "" {
		s += " req=" + a.RequestID
	}
	if a.Parent != "" {
		s += fmt.Sprintf(" forked-from=%s(%s)", a.Parent, a.ForkMode)
	}
	for _, h := range a.Holds {
		s += fmt.Sprintf(" | %s token=%s count=%d grant#%d", h.Lock, h.Token, h.Count, h.Hold)
		if h.Fence > 0 {
			s += fmt.Sprintf(" fence=%d", h.Fence)
		}
		if h.RenewAtMS > 0 {
			s += fmt.Sprintf(" renew@%dms", h.RenewAtMS)
		}
		if h.Pending {
			s += " (DEL pending)"
		}
		switch {
		case !h.InRedis && onNodes:
			s += " (not on a majority of the nodes)"
		case !h.InRedis:
			s += " (not in Redis)"
		}
	}
	for _, lock := range a.PendingWrites {
		s += " | " + lock + " (write pending)"
	}
	return s
}

// msg is m rendered in the printer's locale, or its code and arguments.
func (p Printer) msg(m Msg) string {
	if p.Renderer != nil {
		return p.Renderer.Render(p.Locale, m)
	}
	keys := make([]string, 0, len(m.Args))
	for k := range m.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(m.ID)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%v", k, m.Args[k])
	}
	return b.String()
}
