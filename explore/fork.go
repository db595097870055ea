package explore

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"lockstep/sim"
)

// ErrBadStep is wrapped by every error of Fork, Undo and Sandbox about what
// the learner asked for: an action the timeline cannot take at that point,
// or a sandbox setting out of range. Test with errors.Is.
var ErrBadStep = errors.New("explore: bad step")

// Bounds of what a learner may build, so that a timeline stays something a
// page can draw and a link can carry.
const (
	MaxSteps      = 200              // steps of one timeline
	MaxActors     = 6                // actors of a sandbox
	MaxLeaseMS    = 24 * 3600 * 1000 // a lease, in milliseconds (one day)
	MaxAdvanceMS  = 7 * MaxLeaseMS   // an advance or a clock jump, in milliseconds (a week)
	MaxValueBytes = 64               // a write's value
)

var idPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

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
	// ReplyLost (release): the reply never reaches the client.
	ReplyLost bool `json:"reply_lost,omitempty"`
	// Unreplicated (acquire, release, write; a timeline with a replica,
	// before its failover): the primary answers before the replica has the
	// write.
	Unreplicated bool `json:"unreplicated,omitempty"`
}

// Step turns the spec into a step of l, checking each field on its own
// (sim.Validate checks the step against the timeline). Errors wrap
// ErrBadStep.
func (s StepSpec) Step(l *sim.Lesson) (sim.Step, error) {
	bad := func(format string, args ...any) (sim.Step, error) {
		return sim.Step{}, fmt.Errorf("%w: "+format, append([]any{ErrBadStep}, args...)...)
	}
	if !slices.Contains(sim.Actions, s.Do) {
		return bad("unknown action %q", s.Do)
	}
	st := sim.Step{Actor: s.Actor, Do: s.Do, Lock: s.Lock, ReplyLost: s.ReplyLost, Unreplicated: s.Unreplicated}
	global := s.Do == sim.ActAdvance || s.Do == sim.ActClockJump || s.Do == sim.ActFailover
	switch {
	case global && s.Actor != "":
		return bad("%s takes no actor", s.Do)
	case !global && !idPattern.MatchString(s.Actor):
		return bad("%s needs an actor", s.Do)
	}
	if global {
		st.Lock = ""
	} else if st.Lock == "" {
		st.Lock = l.Lock
	}
	if len(st.Lock) > 200 || (st.Lock != "" && !sim.ValidLockName(st.Lock)) {
		return bad("lock name %q: want a letter or digit, then letters, digits and : . _ - (at most 200)", st.Lock)
	}
	switch s.Do {
	case sim.ActAdvance, sim.ActClockJump:
		if s.ByMS <= 0 || s.ByMS > MaxAdvanceMS {
			return bad("%s needs by_ms between 1 and %d", s.Do, MaxAdvanceMS)
		}
		st.By = time.Duration(s.ByMS) * time.Millisecond
	case sim.ActAcquire:
		if s.LeaseMS < 0 || s.LeaseMS > MaxLeaseMS {
			return bad("lease_ms must be between 0 (the lesson's) and %d", MaxLeaseMS)
		}
		st.Lease = time.Duration(s.LeaseMS) * time.Millisecond
	case sim.ActWrite:
		if s.Value == "" || len(s.Value) > MaxValueBytes {
			return bad("write needs a value of 1 to %d bytes", MaxValueBytes)
		}
		st.Value = s.Value
	case sim.ActFork:
		if !idPattern.MatchString(s.Child) || len(s.Child) > 32 {
			return bad("fork needs a child id like A-1 (a letter, then letters, digits, - or _)")
		}
		if s.Context != "inherit" && s.Context != "lost" {
			return bad("fork needs context inherit or lost, not %q", s.Context)
		}
		st.Child, st.Context = s.Child, s.Context
	}
	if s.ReplyLost && s.Do != sim.ActRelease {
		return bad("reply_lost applies to release only")
	}
	if s.Unreplicated && s.Do != sim.ActAcquire && s.Do != sim.ActRelease && s.Do != sim.ActWrite {
		return bad("unreplicated applies to acquire, release and write only")
	}
	return st, nil
}

// Fork returns a new timeline: the first at steps of l, then st. l is not
// changed. Declared actors that only the dropped steps would have forked are
// left out, so the kept steps run exactly as before. The result is checked
// with sim.Validate; an action the timeline cannot take there (a step for a
// paused actor, say) is an error wrapping ErrBadStep with the validator's
// words. The first fork of a lesson gets the id "<id>-fork" and keeps the
// lesson's seed, so its grant tokens are the lesson's.
func Fork(l *sim.Lesson, at int, st sim.Step) (*sim.Lesson, error) {
	if at < 0 || at > len(l.Steps) {
		return nil, fmt.Errorf("%w: step %d is outside 0..%d", ErrBadStep, at, len(l.Steps))
	}
	if at+1 > MaxSteps {
		return nil, fmt.Errorf("%w: a timeline has at most %d steps", ErrBadStep, MaxSteps)
	}
	steps := append(slices.Clone(l.Steps[:at]), st)
	out := withSteps(l, steps)
	if !strings.HasSuffix(out.ID, "-fork") && out.ID != SandboxID {
		out.ID = trimID(out.ID, 64-len("-fork")) + "-fork"
	}
	if err := sim.Validate(out); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadStep, validationText(err))
	}
	return out, nil
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

// validationText is the validator's messages without the file positions a
// hand-built lesson does not have.
func validationText(err error) string {
	var les sim.LoadErrors
	if !errors.As(err, &les) {
		return err.Error()
	}
	msgs := make([]string, len(les))
	for i, e := range les {
		msgs[i] = e.Msg
	}
	return strings.Join(msgs, "; ")
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
}

// Sandbox returns an empty timeline for c: no steps yet, its title and actor
// names rendered by r in every locale of r. Errors wrap ErrBadStep and name
// the setting.
func Sandbox(r sim.Renderer, c SandboxConfig) (*sim.Lesson, error) {
	bad := func(format string, args ...any) (*sim.Lesson, error) {
		return nil, fmt.Errorf("%w: sandbox: "+format, append([]any{ErrBadStep}, args...)...)
	}
	if _, ok := sim.Variant(c.Variant); !ok {
		return bad("unknown variant %q (want one of %s)", c.Variant, strings.Join(sim.Variants(), ", "))
	}
	if c.LeaseMS <= 0 || c.LeaseMS > MaxLeaseMS {
		return bad("lease must be 1 to %d ms, got %d", MaxLeaseMS, c.LeaseMS)
	}
	if c.Actors < 1 || c.Actors > MaxActors {
		return bad("actors must be 1 to %d, got %d", MaxActors, c.Actors)
	}
	lock := c.Lock
	if lock == "" {
		lock = "lock"
	}
	if len(lock) > 200 || !sim.ValidLockName(lock) {
		return bad("lock name %q: want a letter or digit, then letters, digits and : . _ - (at most 200)", lock)
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	l := &sim.Lesson{
		ID: SandboxID, Title: sim.TextOf(r, sandboxTitle(c.Variant)), Variant: c.Variant,
		Lease: time.Duration(c.LeaseMS) * time.Millisecond, Fencing: c.Fencing, Lock: lock,
		Seed: seed, Replica: c.Replica,
	}
	for i := range c.Actors {
		id := string(rune('A' + i))
		l.Actors = append(l.Actors, sim.ActorSpec{ID: id, Name: sim.TextOf(r, workerName(id))})
	}
	if err := sim.Validate(l); err != nil {
		return bad("%s", validationText(err))
	}
	return l, nil
}

func sandboxTitle(variant string) sim.Msg { return sim.M("explore.sandbox-title", "Variant", variant) }

func workerName(id string) sim.Msg { return sim.M("explore.worker", "Actor", id) }
