package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"lockstep/sim"
)

// Bounds of what a learner may build, so that a timeline stays something a
// page can draw and a link can carry.
const (
	MaxSteps      = 200              // steps of one timeline
	MaxActors     = 6                // actors of a sandbox
	MaxLeaseMS    = 24 * 3600 * 1000 // a lease, in milliseconds (one day)
	MaxAdvanceMS  = 7 * MaxLeaseMS   // an advance or a clock jump, in milliseconds (a week)
	MaxValueBytes = 64               // a write's value
)

// StepSpec is an action a learner chooses: the "action" of the websocket's
// fork message and of a Choice. Durations are whole milliseconds. Empty
// fields take the lesson's defaults (Lock: the lesson's lock, LeaseMS: its
// lease).
type StepSpec struct {
	Actor   string     `json:"actor,omitempty"`
	Do      sim.Action `json:"do"`
	Lock    string     `json:"lock,omitempty"`
	LeaseMS int64      `json:"lease_ms,omitempty"` // acquire
	ByMS    int64      `json:"by_ms,omitempty"`    // advance, clock-jump
	Value   string     `json:"value,omitempty"`    // write
	Child   string     `json:"child,omitempty"`    // fork
	Context string     `json:"context,omitempty"`  // fork: inherit or lost
	// ReplyLost (acquire, release): the reply never reaches the client.
	ReplyLost bool `json:"reply_lost,omitempty"`
	// Unreplicated (acquire, release, write; a timeline with a replica,
	// before its failover): the primary answers before the replica has the
	// write.
	Unreplicated bool `json:"unreplicated,omitempty"`
	// Node (restart; a timeline with nodes) is the node that restarts.
	Node int `json:"node,omitempty"`
	// Unreachable (acquire, release; a timeline with nodes) lists the nodes
	// the call does not reach.
	Unreachable []int `json:"unreachable,omitempty"`
}

// Step turns the spec into a step of l that follows its first at steps
// (the fork point; it names the step, at+1, in messages): the lesson's lock
// where it names none, its durations in time.Duration. It refuses a field
// the action does not take (sim.StepFields, the table of sim.Validate) and
// checks explore mode's own bounds (durations, a write's value, a child
// id's length); the other rules of the lesson format are sim.Validate's,
// which Fork applies. Errors are *StepError, wrapping ErrBadStep, whose
// Problems name the step and the field ("steps[3].by_ms").
func (s StepSpec) Step(l *sim.Lesson, at int) (sim.Step, error) {
	st := sim.Step{Actor: s.Actor, Do: s.Do, Lock: s.Lock, ReplyLost: s.ReplyLost, Unreplicated: s.Unreplicated,
		Node: s.Node, Unreachable: slices.Clone(s.Unreachable), Value: s.Value, Child: s.Child, Context: s.Context}
	var b bounds
	path := fmt.Sprintf("steps[%d].", at+1)
	takes, known := sim.StepFields(s.Do)
	if known {
		// Each field of the spec, by its name in the fork message and in
		// the lesson format.
		for _, f := range []struct {
			wire, name string
			given      bool
		}{
			{"actor", "actor", s.Actor != ""}, {"lock", "lock", s.Lock != ""}, {"lease_ms", "lease", s.LeaseMS != 0},
			{"by_ms", "by", s.ByMS != 0}, {"value", "value", s.Value != ""}, {"child", "child", s.Child != ""},
			{"context", "context", s.Context != ""}, {"reply_lost", "reply_lost", s.ReplyLost},
			{"unreplicated", "unreplicated", s.Unreplicated}, {"node", "node", s.Node != 0},
			{"unreachable", "unreachable", s.Unreachable != nil},
		} {
			if f.given && !slices.Contains(takes, f.name) {
				b.add(path+f.wire, sim.M("lesson.field-not-applicable", "Field", f.wire, "Action", string(s.Do)), "field %q does not apply to %s", f.wire, s.Do)
			}
		}
	}
	global := s.Do == sim.ActAdvance || s.Do == sim.ActClockJump || s.Do == sim.ActFailover || s.Do == sim.ActRestart
	if global {
		st.Lock = ""
	} else if st.Lock == "" {
		st.Lock = l.Lock
	}
	if s.ByMS < 0 || s.ByMS > MaxAdvanceMS {
		b.add(path+"by_ms", sim.M("explore.step.by", "Field", "by_ms", "Max", MaxAdvanceMS, "Got", s.ByMS), "by_ms must be between 1 and %d, got %d", MaxAdvanceMS, s.ByMS)
	}
	if s.LeaseMS < 0 || s.LeaseMS > MaxLeaseMS {
		b.add(path+"lease_ms", sim.M("explore.step.lease", "Field", "lease_ms", "Max", MaxLeaseMS, "Got", s.LeaseMS), "lease_ms must be between 0 (the lesson's) and %d, got %d", MaxLeaseMS, s.LeaseMS)
	}
	if s.Do == sim.ActWrite && (s.Value == "" || len(s.Value) > MaxValueBytes) {
		b.add(path+"value", sim.M("explore.step.value", "Max", MaxValueBytes), "write needs a value of 1 to %d bytes", MaxValueBytes)
	}
	if len(s.Child) > MaxChildID {
		b.add(path+"child", sim.M("explore.step.child", "Max", MaxChildID), "a child id is at most %d bytes", MaxChildID)
	}
	if len(b.errs) > 0 {
		return sim.Step{}, &StepError{Problems: b.errs}
	}
	st.By = time.Duration(s.ByMS) * time.Millisecond
	st.Lease = time.Duration(s.LeaseMS) * time.Millisecond
	return st, nil
}

// MaxChildID bounds the id of an actor a learner's fork creates, in bytes.
const MaxChildID = 32

// Fork returns a new timeline: the first at steps of l, then st. l is not
// changed. Declared actors that only the dropped steps would have forked are
// left out, so the kept steps run exactly as before. The result is checked
// with sim.Validate; an action the timeline cannot take there (a step for a
// paused actor, say) is an error wrapping ErrBadStep with the validator's
// words. The first fork of a lesson gets the id "<id>-fork" and keeps the
// lesson's seed, so its grant tokens are the lesson's. The lesson's note,
// which describes the lesson's own timeline, is dropped unless the fork's
// steps are the lesson's (the same step again at its end).
func Fork(l *sim.Lesson, at int, st sim.Step) (*sim.Lesson, error) {
	if at < 0 || at > len(l.Steps) {
		return nil, badStep(sim.M("explore.step.at", "At", at, "Steps", len(l.Steps)), "step %d is outside 0..%d", at, len(l.Steps))
	}
	if at+1 > MaxSteps {
		return nil, badStep(sim.M("explore.step.too-many", "Max", MaxSteps), "a timeline has at most %d steps", MaxSteps)
	}
	if st.Do == sim.ActFork && alive(l, at)[st.Child] {
		// A declared actor that a fork creates is named by its declaration
		// (lessons/README.md); one that already runs at this point would be
		// replaced by the child, so the fork is refused.
		return nil, badStep(sim.M("explore.step.child-exists", "Child", st.Child), "fork child %q already exists", st.Child)
	}
	steps := append(slices.Clone(l.Steps[:at]), st)
	out := withSteps(l, steps)
	if !sameSteps(out.Steps, l.Steps) {
		out.Note = nil // it describes l's timeline, which this one leaves at step at+1
	}
	if !strings.HasSuffix(out.ID, "-fork") && out.ID != SandboxID {
		out.ID = trimID(out.ID, 64-len("-fork")) + "-fork"
	}
	if err := (sim.Options{AnyLocale: true}).Validate(out); err != nil {
		return nil, rulesBroken(err, sim.Msg{}, "")
	}
	return out, nil
}

// alive returns the actors of l that exist after its first at steps: the
// declared ones no step forks, and the children forked so far.
func alive(l *sim.Lesson, at int) map[string]bool {
	forked := map[string]bool{}
	for _, s := range l.Steps {
		if s.Do == sim.ActFork {
			forked[s.Child] = true
		}
	}
	out := map[string]bool{}
	for _, a := range l.Actors {
		if !forked[a.ID] {
			out[a.ID] = true
		}
	}
	for _, s := range l.Steps[:at] {
		if s.Do == sim.ActFork {
			out[s.Child] = true
		}
	}
	return out
}

// Undo returns l without its last step (l itself when it has none).
func Undo(l *sim.Lesson) *sim.Lesson {
	if len(l.Steps) == 0 {
		return l
	}
	return withSteps(l, slices.Clone(l.Steps[:len(l.Steps)-1]))
}

// withSteps copies l's header with the given steps, dropping declared
// actors that only a removed fork step creates.
func withSteps(l *sim.Lesson, steps []sim.Step) *sim.Lesson {
	out := *l
	out.File = ""
	out.Steps = steps
	forkedBefore, forkedNow := map[string]bool{}, map[string]bool{}
	for _, s := range l.Steps {
		if s.Do == sim.ActFork {
			forkedBefore[s.Child] = true
		}
	}
	for _, s := range steps {
		if s.Do == sim.ActFork {
			forkedNow[s.Child] = true
		}
	}
	out.Actors = nil
	for _, a := range l.Actors {
		if forkedBefore[a.ID] && !forkedNow[a.ID] {
			continue
		}
		out.Actors = append(out.Actors, a)
	}
	return &out
}

func trimID(id string, n int) string {
	if len(id) > n {
		return id[:n]
	}
	return id
}

// SandboxID is the id of every sandbox timeline.
const SandboxID = "sandbox"

// SandboxConfig is the start of a sandbox timeline.
type SandboxConfig struct {
	Variant string // one of sim.Variants()
	LeaseMS int64  // the default lease, 1 ms to a day
	Fencing bool   // outermost acquires get fencing tokens
	Actors  int    // 1 to MaxActors, named A, B, C, ...
	Lock    string // the lock's name; "" means "lock"
	Replica bool   // a primary and a replica, so that failover is on the menu
	Seed    uint64 // the run's seed (grant tokens); 0 means 1
	// Def, when set, is the learner's own lock (a user's variant file,
	// sim.LoadVariant): the sandbox runs it, and Variant is ignored.
	Def *sim.VariantDef
}

// Sandbox returns an empty timeline for c: no steps yet, its title and actor
// names rendered by r in every locale of r. Errors wrap ErrBadStep and name
// the setting.
func Sandbox(r sim.Renderer, c SandboxConfig) (*sim.Lesson, error) {
	if c.LeaseMS <= 0 || c.LeaseMS > MaxLeaseMS {
		return nil, badStep(sim.M("explore.sandbox.lease", "Max", MaxLeaseMS, "Got", c.LeaseMS), "sandbox: lease must be 1 to %d ms, got %d", MaxLeaseMS, c.LeaseMS)
	}
	if c.Actors < 1 || c.Actors > MaxActors {
		return nil, badStep(sim.M("explore.sandbox.actors", "Max", MaxActors, "Got", c.Actors), "sandbox: actors must be 1 to %d, got %d", MaxActors, c.Actors)
	}
	lock := c.Lock
	if lock == "" {
		lock = "lock"
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	if c.Def != nil {
		c.Variant = c.Def.Name
	}
	l := &sim.Lesson{
		ID: SandboxID, Title: sim.TextOf(r, sandboxTitle(c.Variant)), Variant: c.Variant,
		Lease: time.Duration(c.LeaseMS) * time.Millisecond, Fencing: c.Fencing, Lock: lock,
		Seed: seed, Replica: c.Replica, VariantDef: c.Def,
	}
	for i := range c.Actors {
		id := string(rune('A' + i))
		l.Actors = append(l.Actors, sim.ActorSpec{ID: id, Name: sim.TextOf(r, workerName(id))})
	}
	if err := (sim.Options{Locales: r.Locales()}).Validate(l); err != nil {
		return nil, rulesBroken(err, sim.M("explore.sandbox"), "sandbox")
	}
	return l, nil
}

func sandboxTitle(variant string) sim.Msg { return sim.M("explore.sandbox-title", "Variant", variant) }

func workerName(id string) sim.Msg { return sim.M("explore.worker", "Actor", id) }
