package explore

import (
	"reflect"
	"slices"

	"lockstep/sim"
)

// Strip returns a copy of fork l without what its origin lesson base
// already holds: the texts of the header and actors and the narration of
// the steps it kept from base (the first o.At). A share code of the result
// is short, and Restore puts the texts back from the same lesson. l is
// returned unchanged when base does not match it (see Restore).
func Strip(l *sim.Lesson, o Origin, base *sim.Lesson) *sim.Lesson {
	if base == nil || !matches(l, o, base) {
		return l
	}
	out := *l
	out.Title, out.Summary, out.Takeaway, out.Note, out.Source, out.Group = nil, nil, nil, nil, "", ""
	out.Actors = slices.Clone(l.Actors)
	for i := range out.Actors {
		out.Actors[i].Name = nil
	}
	out.Steps = slices.Clone(l.Steps)
	for i := range o.At {
		out.Steps[i].Say = nil
	}
	return &out
}

// Restore puts back into l, decoded from a share code, the texts that
// Strip left out, from base (the course lesson o names), when the first
// o.At steps of l are base's steps and the header is base's. Otherwise it
// returns l as it is: a link made from another version of the lesson still
// runs exactly as it was made, only without base's narration. base's note,
// which describes base's timeline, goes back only to a timeline whose steps
// are all base's.
func Restore(l *sim.Lesson, o Origin, base *sim.Lesson) *sim.Lesson {
	if base == nil || !matches(l, o, base) {
		return l
	}
	out := *l
	if len(out.Title) == 0 {
		out.Title = base.Title
	}
	if len(out.Summary) == 0 {
		out.Summary = base.Summary
	}
	if len(out.Takeaway) == 0 {
		out.Takeaway = base.Takeaway
	}
	if len(out.Note) == 0 && sameSteps(l.Steps, base.Steps) {
		out.Note = base.Note // it describes base's timeline, so only that one
	}
	if out.Source == "" {
		out.Source = base.Source
	}
	if out.Group == "" {
		out.Group = base.Group
	}
	out.Actors = slices.Clone(l.Actors)
	for i := range out.Actors {
		if len(out.Actors[i].Name) == 0 {
			if j := slices.IndexFunc(base.Actors, func(a sim.ActorSpec) bool { return a.ID == out.Actors[i].ID }); j >= 0 {
				out.Actors[i].Name = base.Actors[j].Name
			}
		}
	}
	out.Steps = slices.Clone(l.Steps)
	for i := range o.At {
		if len(out.Steps[i].Say) == 0 {
			out.Steps[i].Say = base.Steps[i].Say
		}
	}
	return &out
}

// matches reports whether l runs base's header and first o.At steps.
func matches(l *sim.Lesson, o Origin, base *sim.Lesson) bool {
	if o.Lesson != base.ID || o.At > len(base.Steps) || o.At > len(l.Steps) {
		return false
	}
	if l.Variant != base.Variant || l.Lease != base.Lease || l.Fencing != base.Fencing || l.Lock != base.Lock ||
		l.Seed != base.Seed || l.Replica != base.Replica || l.Nodes != base.Nodes {
		return false
	}
	for i := range o.At {
		if !sameStep(l.Steps[i], base.Steps[i]) {
			return false
		}
	}
	return true
}

// sameSteps reports whether a and b are the same timeline's steps
// (sameStep each): a lesson's note, which describes its own timeline,
// belongs to a timeline only then.
func sameSteps(a, b []sim.Step) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameStep(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameStep compares what a step does, not its narration or file position.
func sameStep(a, b sim.Step) bool {
	a.Say, b.Say = nil, nil
	a.Pos, b.Pos, a.ActorPos, b.ActorPos = sim.Pos{}, sim.Pos{}, sim.Pos{}, sim.Pos{}
	return reflect.DeepEqual(a, b)
}
