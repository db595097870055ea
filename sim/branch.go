package sim

import (
	"context"
	"errors"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file is the hook package search needs to explore timelines: a runner
// with no steps of its own that takes each step as it comes (Extend), whose
// state can be saved and gone back to (Branch, Restore), and a canonical key
// of that state (StateKey), so that timelines that reach the same state are
// explored once.

// BranchOptions configures NewBranchRunner.
type BranchOptions struct {
	// Writes is true when the timelines will write to the protected
	// resource, so that its key is read after every step.
	Writes bool
	// Horizon is the most simulated time the timelines may pass (depth times
	// the largest advance); Lockstep's housekeeping keys (resource, fencing
	// counter) live that long past a day, as they do in a lesson.
	Horizon time.Duration
}

// NewBranchRunner prepares a run of l, a lesson with no steps, whose steps
// come one at a time through Extend. It validates l like NewRunner and
// records frame 0.
func NewBranchRunner(l *Lesson, s Store, o BranchOptions) (*Runner, error) {
	if len(l.Steps) > 0 {
		return nil, errors.New("sim: NewBranchRunner: the lesson must have no steps")
	}
	if len(l.Actors) == 0 {
		return nil, errors.New("sim: NewBranchRunner: the lesson has no actor")
	}
	shape := *l
	if o.Writes {
		// A write step makes NewRunner read the resource key; the step
		// itself never runs.
		shape.Steps = []Step{{Actor: l.Actors[0].ID, Do: ActWrite, Lock: l.Lock, Value: "-"}}
	}
	r, err := NewRunner(&shape, s)
	if err != nil {
		return nil, err
	}
	r.lesson = l
	r.keepMS = (keepBase + o.Horizon).Milliseconds()
	return r, nil
}

// Extend runs st (a step of the lesson's lock, valid after the steps taken:
// no step for a paused or crashed actor) after the steps taken so far and
// returns its frame. The frame's Index counts the steps taken. It never
// reports leaked-hold for the end of a lesson: an extended run has no end.
// An error from the store leaves the runner unusable until a Restore.
func (r *Runner) Extend(ctx context.Context, st *Step) (Frame, error) {
	prev := r.frames[len(r.frames)-1]
	f, err := r.apply(ctx, st)
	if err != nil {
		return Frame{}, err
	}
	f.Index = prev.Index + 1
	r.frames = []Frame{{Index: f.Index, Locks: f.Locks}}
	return f, nil
}

// Branch is a saved state of a run, to go on from as often as needed, on
// this runner or on another one made by NewBranchRunner from the same lesson.
type Branch struct {
	state runnerState
	index int
	locks []LockView
}

// Branch saves the run's state.
func (r *Runner) Branch() *Branch {
	last := r.frames[len(r.frames)-1]
	return &Branch{state: r.save(), index: last.Index, locks: last.Locks}
}

// Restore puts the run back into the state b saved. b stays as it was, so
// it can be restored again.
func (r *Runner) Restore(b *Branch) {
	s := b.state
	s.holdSeq, s.current, s.written = maps.Clone(s.holdSeq), maps.Clone(s.current), maps.Clone(s.written)
	s.actors = slices.Clone(s.actors)
	for i := range s.actors {
		s.actors[i].pending = maps.Clone(s.actors[i].pending)
		s.actors[i].pendingWrite = maps.Clone(s.actors[i].pendingWrite)
		s.actors[i].lostUnlock = maps.Clone(s.actors[i].lostUnlock)
	}
	r.restore(s)
	r.frames = []Frame{{Index: b.index, Locks: b.locks}}
}

// Keys returns the simulated state of every key of the run, in the order
// of Keys(): what a store must hold before the next step.
func (b *Branch) Keys() []KeyState { return b.state.keys }

// generatedID matches the ids the runner draws from its RNG: grant tokens
// (newToken), unlock-call ids (newUnlockID) and request ids (addActor).
var generatedID = regexp.MustCompile(`^(t-[0-9a-f]{8}|u-[0-9a-f]{8}|req-[0-9a-f]{6})$`)

// StateKey returns a canonical form of the run's state: two runs with the
// same key have the same futures, step for step. It holds every actor's
// status, context and beliefs (tokens, hold counts, fencing tokens, hold
// order, pending releases, the watchdog's next renewal relative to now,
// the actor whose hold came while a belief's hold was gone),
// the hold Redis keeps as the runner took it, the newest hold written, and
// every key with its contents and PTTL. Values the runner drew from its RNG
// are compared by identity: they are renamed in order of first appearance.
// Fencing tokens and hold numbers are compared by order: they are replaced
// by their rank among those in the state (only their order decides a
// future: a new one is always higher than all). A PTTL above horizonMS (the
// most time the remaining steps can pass) is written as "live", since no
// future step can see it run out. Written values are compared by writer
// only (no script reads them back).
func (r *Runner) StateKey(horizonMS int64) string {
	c := canon{names: map[string]string{}}
	// Ranks of fencing tokens and of hold numbers.
	fences := []int64{0}
	seqs := []int{0}
	for _, a := range r.actors {
		for _, g := range a.grants {
			fences = append(fences, g.fence)
			seqs = append(seqs, g.seq)
		}
	}
	for _, lock := range r.locks {
		seqs = append(seqs, r.written[lock])
		if h := r.current[lock]; h != nil {
			seqs = append(seqs, h.seq)
		}
	}
	for i, k := range r.keys {
		if f, ok := r.fenceValue(i, k); ok {
			fences = append(fences, f)
		}
	}
	fenceRank := ranks(fences)
	seqRank := ranks(seqs)
	var b strings.Builder
	for _, a := range r.actors {
		b.WriteString(a.id)
		b.WriteByte('|')
		b.WriteString(a.status)
		b.WriteByte('|')
		b.WriteString(a.context)
		b.WriteByte('|')
		b.WriteString(c.name(a.requestID))
		for _, lock := range r.locks {
			if g := a.grants[lock]; g != nil {
				b.WriteString("|g:" + lock + ":" + c.name(g.token) + ":" + strconv.Itoa(g.count) +
					":f" + strconv.Itoa(fenceRank[g.fence]) + ":s" + strconv.Itoa(seqRank[g.seq]) +
					":l" + strconv.FormatInt(g.leaseMS, 10))
				if g.renewAt > 0 {
					b.WriteString(":r" + strconv.FormatInt(g.renewAt-r.now, 10))
				}
				if g.takenBy != "" {
					b.WriteString(":t" + g.takenBy)
				}
			}
			if p, ok := a.pending[lock]; ok {
				b.WriteString("|p:" + lock + ":" + c.name(p))
			}
			if w, ok := a.pendingWrite[lock]; ok {
				b.WriteString("|w:" + lock + ":f" + strconv.Itoa(fenceRank[w.fence]) + ":s" + strconv.Itoa(seqRank[w.seq]) + ":" + strconv.FormatBool(w.held))
			}
			if u, ok := a.lostUnlock[lock]; ok {
				b.WriteString("|u:" + lock + ":" + c.name(u))
			}
		}
		b.WriteByte('\n')
	}
	for _, lock := range r.locks {
		b.WriteString("w:" + strconv.Itoa(seqRank[r.written[lock]]))
		if h := r.current[lock]; h != nil {
			b.WriteString("|c:" + strconv.Itoa(seqRank[h.seq]) + ":" + h.context + ":" + c.name(h.owner))
		}
		b.WriteByte('\n')
	}
	for i, k := range r.keys {
		b.WriteString(k.Name)
		b.WriteByte('|')
		b.WriteString(string(k.Type))
		if !k.Exists() {
			b.WriteByte('\n')
			continue
		}
		if k.PTTL > horizonMS {
			b.WriteString("|live")
		} else {
			b.WriteString("|" + strconv.FormatInt(k.PTTL, 10))
		}
		if f, ok := r.fenceValue(i, k); ok && k.Type == TypeString {
			b.WriteString("|=f" + strconv.Itoa(fenceRank[f]))
			b.WriteByte('\n')
			continue
		}
		if k.Type == TypeString {
			b.WriteString("|=" + c.name(k.Value))
		}
		b.WriteString(c.fields(k, strings.HasPrefix(k.Name, resourceKeyPrefix), fenceRank))
		b.WriteByte('\n')
	}
	return b.String()
}

// fenceValue returns the fencing token key i holds: the counter's value, or
// the highest token the resource has accepted.
func (r *Runner) fenceValue(i int, k KeyState) (int64, bool) {
	if !k.Exists() {
		return 0, false
	}
	name := r.reads[i].Name
	var s string
	switch {
	case strings.HasPrefix(name, fenceKeyPrefix) && k.Type == TypeString:
		s = k.Value
	case strings.HasPrefix(name, resourceKeyPrefix):
		v, ok := k.Field("fence")
		if !ok {
			return 0, false
		}
		s = v
	default:
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ranks maps each value to its rank among the distinct values (0 for the
// smallest).
func ranks[T int | int64](vals []T) map[T]int {
	slices.Sort(vals)
	vals = slices.Compact(vals)
	out := make(map[T]int, len(vals))
	for i, v := range vals {
		out[v] = i
	}
	return out
}

// canon renames generated ids in order of first appearance.
type canon struct {
	names map[string]string
}

func (c *canon) name(s string) string {
	if !generatedID.MatchString(s) {
		return s
	}
	if n, ok := c.names[s]; ok {
		return n
	}
	n := "#" + strconv.Itoa(len(c.names)+1)
	c.names[s] = n
	return n
}

// fields writes a hash's fields with ids renamed. Fields are sorted by their
// names in Redis, which for ids drawn at random says nothing: the fields
// whose names are already known (or not ids) come first, by renamed name,
// then the others by value, so that the renaming does not depend on the
// ids' values. On the resource, the value written is left out and the
// fencing token replaced by its rank.
func (c *canon) fields(k KeyState, resource bool, fenceRank map[int64]int) string {
	type kv struct{ name, value string }
	var known, fresh []kv
	for _, f := range k.Fields {
		v := f.Value
		switch {
		case resource && f.Name == "value":
			continue
		case resource && f.Name == "fence":
			n, _ := strconv.ParseInt(v, 10, 64)
			v = "f" + strconv.Itoa(fenceRank[n])
		}
		if _, seen := c.names[f.Name]; seen || !generatedID.MatchString(f.Name) {
			known = append(known, kv{c.name(f.Name), v})
		} else {
			fresh = append(fresh, kv{f.Name, v})
		}
	}
	sort.Slice(known, func(i, j int) bool { return known[i].name < known[j].name })
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].value < fresh[j].value })
	var b strings.Builder
	for _, f := range known {
		b.WriteString("|" + f.name + "=" + c.name(f.value))
	}
	for _, f := range fresh {
		b.WriteString("|" + c.name(f.name) + "=" + c.name(f.value))
	}
	return b.String()
}

// SameKey reports whether a and b are the same key with the same contents
// and PTTL.
func SameKey(a, b KeyState) bool { return sameKey(a, b) }
