package explore

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"lockstep/sim"
)

// ForkTitle is the title of a fork of base after step at: message
// "explore.fork-title" of the catalogue.
func ForkTitle(base *sim.Lesson, at int) sim.Msg {
	return sim.M("explore.fork-title", "Title", base.Title, "At", at)
}

// ForkSummary says what a fork of base after step at with steps steps in
// all is (the lesson's summary would no longer be true of it): message
// "explore.fork-summary" with the number of steps it added (Added),
// ".one" when it added one, ".unchanged" while it has added nothing.
func ForkSummary(base *sim.Lesson, at, steps int) sim.Msg {
	switch added := steps - at; {
	case added <= 0:
		return sim.M("explore.fork-summary.unchanged", "Title", base.Title, "Steps", steps)
	case added == 1:
		return sim.M("explore.fork-summary.one", "Title", base.Title, "At", at)
	default:
		return sim.M("explore.fork-summary", "Title", base.Title, "At", at, "Added", added)
	}
}

// ForExport returns timeline l ready to be a lesson file of the course: run
// frames (frames[0] is the start), origin o and the lesson it forks (base,
// nil for a sandbox or an import). Every text the course's tests ask for is
// filled where l has none: a fork's title and summary say what it is, a
// sandbox gets a source and a group, the takeaway lists the invariants the
// run broke (or says none did), actors get names, steps without narration
// get explore's (Narrate) and steps with an outcome assert the one the run
// gave. Its id is unique to its steps ("stale-owner-fork-3a9c1e"), so two
// exported forks can both go into lessons/. The texts it adds are rendered
// by r (the message catalogue) in every locale of r. l is not changed.
func ForExport(r sim.Renderer, l *sim.Lesson, frames []sim.Frame, o Origin, base *sim.Lesson) *sim.Lesson {
	out := *l
	out.Actors = slices.Clone(l.Actors)
	out.Steps = slices.Clone(l.Steps)
	id := strings.TrimSuffix(l.ID, "-fork")
	if id == "" {
		id = "timeline"
	}
	out.ID = trimID(id, 48) + "-" + shortHash(l)
	if base != nil && o.Lesson == base.ID {
		out.ID = trimID(base.ID, 48) + "-fork-" + shortHash(l)
		out.Title, out.Summary = sim.TextOf(r, ForkTitle(base, o.At)), sim.TextOf(r, ForkSummary(base, o.At, len(l.Steps)))
		if out.Source == "" {
			out.Source = base.Source
		}
		if out.Group == "" {
			out.Group = base.Group
		}
	}
	if len(out.Title) == 0 {
		out.Title = sim.TextOf(r, sandboxTitle(l.Variant))
	}
	if len(out.Summary) == 0 {
		out.Summary = sim.TextOf(r, sim.M("explore.timeline-summary", "Variant", l.Variant))
	}
	if out.Source == "" {
		out.Source = "Lockstep explore mode"
	}
	if out.Group == "" {
		out.Group = sim.Groups[0]
		if l.Replica || l.Nodes > 0 {
			out.Group = "replication"
		}
	}
	if fork := base != nil && o.Lesson == base.ID; fork || len(out.Takeaway) == 0 {
		out.Takeaway = sim.TextOf(r, takeaway(frames))
	}
	for i := range out.Actors {
		if len(out.Actors[i].Name) == 0 {
			out.Actors[i].Name = sim.TextOf(r, workerName(out.Actors[i].ID))
		}
	}
	for i := range out.Steps {
		st := &out.Steps[i]
		if i+1 >= len(frames) {
			break
		}
		if len(st.Say) == 0 {
			st.Say = sim.TextOf(r, Narrate(&out, st, frames[i], frames[i+1]))
		}
		if st.Expect == "" && len(sim.OutcomesFor(st.Do)) > 1 {
			st.Expect = frames[i+1].Outcome
		}
	}
	return &out
}

// takeaway lists the invariants a run broke, with the step of each first
// break, or says that it broke none.
func takeaway(frames []sim.Frame) sim.Msg {
	var seen []string
	var at []int
	for _, f := range frames {
		for _, v := range f.Violations {
			if !slices.Contains(seen, v.Name) {
				seen = append(seen, v.Name)
				at = append(at, f.Index)
			}
		}
	}
	if len(seen) == 0 {
		return sim.M("explore.takeaway.none")
	}
	parts := make([]string, len(seen))
	for i := range seen {
		parts[i] = seen[i] + " (" + strconv.Itoa(at[i]) + ")"
	}
	return sim.M("explore.takeaway", "Broken", strings.Join(parts, ", "))
}

// shortHash is six hex digits that tell timelines apart.
func shortHash(l *sim.Lesson) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%s|%d|%t|%s|%d|%t", l.ID, l.Variant, l.Lease, l.Fencing, l.Lock, l.Seed, l.Replica)
	if l.Nodes > 0 {
		fmt.Fprintf(h, "|nodes:%d", l.Nodes) // only when set, so the ids of older timelines stay
	}
	for _, a := range l.Actors {
		fmt.Fprintf(h, "|a:%s:%s:%s", a.ID, a.Instance, a.RequestID)
	}
	for _, s := range l.Steps {
		fmt.Fprintf(h, "|s:%s:%s:%s:%d:%t:%t:%s:%s:%s:%d", s.Actor, s.Do, s.Lock, s.Lease, s.ReplyLost, s.Unreplicated, s.Value, s.Child, s.Context, s.By)
		if s.Nested {
			h.Write([]byte(":nested")) // kept apart so the ids of older timelines stay
		}
		if s.Node > 0 || len(s.Unreachable) > 0 {
			fmt.Fprintf(h, ":node%d:unreachable%v", s.Node, s.Unreachable)
		}
	}
	return fmt.Sprintf("%06x", h.Sum32()&0xffffff)
}
