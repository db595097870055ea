package sim

import (
	"fmt"
	"slices"
	"time"
)

// Validate checks a lesson built in code (not read by Load) against the rules
// of the lesson format that span fields and steps: known variant, positive
// leases and advances, unique actor ids, no step for a paused, crashed or not
// yet forked actor, failover and unreplicated steps only with a replica. It
// returns LoadErrors (wrapping ErrInvalidLesson) or nil.
func Validate(l *Lesson) error {
	errs := validate(l, srcPos{})
	if l.Variant == "" {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: "missing required field \"variant\""})
	} else if _, ok := variants[l.Variant]; !ok {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: fmt.Sprintf("unknown variant %q", l.Variant)})
	}
	if l.Lease%time.Millisecond != 0 {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: fmt.Sprintf("lease: Redis leases count whole milliseconds, got %s", l.Lease)})
	}
	if l.Lease <= 0 {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: "lease: duration must be greater than zero"})
	}
	if l.Lock == "" {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: "lock: must not be empty"})
	}
	for i, s := range l.Steps {
		if !slices.Contains(Actions, s.Do) {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: unknown action %q", i+1, s.Do)})
		}
		if (s.Do == ActAdvance || s.Do == ActClockJump) && s.By <= 0 {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: %s needs by > 0", i+1, s.Do)})
		}
		if s.By%time.Millisecond != 0 {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: by must be a whole number of milliseconds, got %s", i+1, s.By)})
		}
		if s.Lease < 0 || s.Lease%time.Millisecond != 0 {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: lease must be a positive whole number of milliseconds", i+1)})
		}
		if s.Do != ActAdvance && s.Do != ActClockJump && s.Do != ActFailover && s.Lock == "" {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: lock must not be empty", i+1)})
		}
		if s.Unreplicated && s.Do != ActAcquire && s.Do != ActRelease && s.Do != ActWrite {
			// Load reports this as a field that does not apply.
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: unreplicated applies to acquire, release and write, not %s", i+1, s.Do)})
		}
	}
	if len(errs) > 0 {
		for i := range errs {
			errs[i].File = l.File
			if errs[i].Pos == (Pos{}) {
				// A hand-built lesson has no positions; LoadError's are 1-based.
				errs[i].Pos = Pos{1, 1}
			}
		}
		return errs
	}
	return nil
}

// srcPos holds where a file wrote the values that Lesson keeps no position
// for, so that validate can point at them. Its zero value (a lesson built in
// code) makes validate fall back to 1:1 and to the step's position.
type srcPos struct {
	fencing      Pos
	child        map[int]Pos // fork child value, by step index
	unreplicated map[int]Pos // unreplicated value, by step index
}

// actorLife is an actor's state as the validator replays the steps.
type actorLife int

const (
	lifeUnborn actorLife = iota // declared as a fork child, not yet forked
	lifeRunning
	lifePaused
	lifeCrashed
	lifeExited
	lifeUnknown // took a step with an unknown action: no longer checked
)

// validate replays the steps' effect on actor lifecycles and reports every
// step that the runner could not carry out. Load also runs it on a lesson
// whose decoding found problems: after a step with an unknown action, that
// step's actor is no longer checked, as the replay cannot tell what the step
// would have done to it.
func validate(l *Lesson, at srcPos) LoadErrors {
	var errs LoadErrors
	add := func(p Pos, format string, args ...any) {
		errs = append(errs, LoadError{Pos: p, Msg: fmt.Sprintf(format, args...)})
	}
	children := map[string]bool{}
	for i, s := range l.Steps {
		if s.Do == ActFork && s.Child != "" && s.Child == s.Actor {
			p, ok := at.child[i]
			if !ok {
				p = s.Pos
			}
			add(p, "step %d: actor %q cannot fork itself; name a new child", i+1, s.Child)
			continue
		}
		if s.Do == ActFork && s.Child != "" {
			children[s.Child] = true
		}
	}
	errs = append(errs, validateReplica(l, at)...)
	life := map[string]actorLife{}
	for _, a := range l.Actors {
		if a.ID == "" {
			continue
		}
		if _, dup := life[a.ID]; dup {
			add(a.Pos, "duplicate actor id %q", a.ID)
			continue
		}
		life[a.ID] = lifeRunning
	}
	// A fork child, declared under actors or not, exists only from its fork on.
	for c := range children {
		life[c] = lifeUnborn
	}
	for i, s := range l.Steps {
		n := i + 1
		if !slices.Contains(Actions, s.Do) {
			if _, ok := life[s.Actor]; ok {
				life[s.Actor] = lifeUnknown
			}
			continue
		}
		if s.Do == ActAdvance || s.Do == ActClockJump || s.Do == ActFailover {
			continue
		}
		p := s.ActorPos
		if p == (Pos{}) {
			p = s.Pos
		}
		st, known := life[s.Actor]
		var problem string
		switch {
		case s.Actor == "", st == lifeUnknown:
			// Reported by the decoder (a missing field, an unknown action).
		case !known:
			problem = fmt.Sprintf("step %d: unknown actor %q (declare it under actors, or create it with fork)", n, s.Actor)
		case st == lifeUnborn:
			problem = fmt.Sprintf("step %d: actor %q is used before the fork that creates it", n, s.Actor)
		case st == lifeCrashed:
			problem = fmt.Sprintf("step %d: actor %q has crashed and can take no further step", n, s.Actor)
		case st == lifeExited:
			problem = fmt.Sprintf("step %d: actor %q has exited and can take no further step", n, s.Actor)
		case st == lifePaused && s.Do != ActResume:
			problem = fmt.Sprintf("step %d: actor %q is paused; only resume may come next for it", n, s.Actor)
		case st == lifeRunning && s.Do == ActResume:
			problem = fmt.Sprintf("step %d: actor %q is not paused, so it cannot resume", n, s.Actor)
		}
		if s.Actor == "" || st == lifeUnknown || problem != "" {
			if problem != "" {
				add(p, "%s", problem)
			}
			// A fork that cannot run still brings its child to life, so that
			// the child's own steps are not reported as well.
			if st, ok := life[s.Child]; ok && s.Do == ActFork && st == lifeUnborn {
				life[s.Child] = lifeRunning
			}
			continue
		}
		switch s.Do {
		case ActPause:
			life[s.Actor] = lifePaused
		case ActResume:
			life[s.Actor] = lifeRunning
		case ActCrash:
			life[s.Actor] = lifeCrashed
		case ActExit:
			life[s.Actor] = lifeExited
		case ActFork:
			if s.Child == "" || s.Child == s.Actor {
				continue
			}
			if st, ok := life[s.Child]; ok && st != lifeUnborn {
				p, ok := at.child[i]
				if !ok {
					p = s.Pos
				}
				add(p, "step %d: fork child %q already exists", n, s.Child)
				continue
			}
			life[s.Child] = lifeRunning
		}
	}
	return errs
}

// validateReplica checks the steps that need a replica: failover and
// unreplicated steps only in a lesson with `replica: true`, at most one
// failover, and no unreplicated step after it (the promoted replica has no
// replica of its own).
func validateReplica(l *Lesson, at srcPos) LoadErrors {
	var errs LoadErrors
	add := func(p Pos, format string, args ...any) {
		errs = append(errs, LoadError{Pos: p, Msg: fmt.Sprintf(format, args...)})
	}
	failover := 0 // 1-based number of the first failover step
	for i, s := range l.Steps {
		n := i + 1
		if s.Do == ActFailover {
			switch {
			case !l.Replica:
				add(s.Pos, "step %d: failover needs a replica to promote; add replica: true to the lesson", n)
			case failover > 0:
				add(s.Pos, "step %d: a lesson fails over at most once (step %d already did)", n, failover)
			}
			if failover == 0 {
				failover = n
			}
		}
		if !s.Unreplicated {
			continue
		}
		p, ok := at.unreplicated[i]
		if !ok {
			p = s.Pos
		}
		switch {
		case !l.Replica:
			add(p, "step %d: unreplicated needs a replica that misses the write; add replica: true to the lesson", n)
		case failover > 0:
			add(p, "step %d: unreplicated after the failover at step %d: the promoted replica has no replica of its own", n, failover)
		}
	}
	return errs
}
