package sim

import (
	"fmt"
	"time"
)

// Validate checks a lesson built in code (not read by Load) against the rules
// of the lesson format that span fields and steps: known variant, positive
// leases and advances, unique actor ids, no step for a paused, crashed or not
// yet forked actor. It returns LoadErrors (wrapping ErrInvalidLesson) or nil.
func Validate(l *Lesson) error {
	errs := validate(l)
	if l.Variant == "" {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: "missing required field \"variant\""})
	} else if _, ok := variants[l.Variant]; !ok {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: fmt.Sprintf("unknown variant %q", l.Variant)})
	}
	if l.Lease <= 0 {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: "lease: duration must be greater than zero"})
	}
	if l.Lock == "" {
		errs = append(errs, LoadError{Pos: Pos{1, 1}, Msg: "lock: must not be empty"})
	}
	for i, s := range l.Steps {
		if s.Do == ActAdvance && s.By <= 0 {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: advance needs by > 0", i+1)})
		}
		if s.Lease < 0 || s.Lease%time.Millisecond != 0 {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: lease must be a positive whole number of milliseconds", i+1)})
		}
		if s.Do != ActAdvance && s.Lock == "" {
			errs = append(errs, LoadError{Pos: s.Pos, Msg: fmt.Sprintf("step %d: lock must not be empty", i+1)})
		}
	}
	if len(errs) > 0 {
		for i := range errs {
			errs[i].File = l.File
		}
		return errs
	}
	return nil
}

// actorLife is an actor's state as the validator replays the steps.
type actorLife int

const (
	lifeUnborn actorLife = iota // declared as a fork child, not yet forked
	lifeRunning
	lifePaused
	lifeCrashed
)

// validate replays the steps' effect on actor lifecycles and reports every
// step that the runner could not carry out.
func validate(l *Lesson) LoadErrors {
	var errs LoadErrors
	add := func(p Pos, format string, args ...any) {
		errs = append(errs, LoadError{Pos: p, Msg: fmt.Sprintf(format, args...)})
	}
	if l.Fencing && l.Variant != "" && l.Variant != "token-count" {
		add(Pos{1, 1}, "fencing: variant %s issues no fencing tokens (only token-count does)", l.Variant)
	}
	children := map[string]bool{}
	for _, s := range l.Steps {
		if s.Do == ActFork && s.Child != "" {
			children[s.Child] = true
		}
	}
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
		if children[a.ID] {
			life[a.ID] = lifeUnborn
		}
	}
	for i, s := range l.Steps {
		n := i + 1
		if s.Do == ActAdvance || s.Do == "" {
			continue
		}
		p := s.ActorPos
		if p == (Pos{}) {
			p = s.Pos
		}
		st, known := life[s.Actor]
		switch {
		case s.Actor == "":
			continue // reported by the decoder as a missing field
		case !known:
			add(p, "step %d: unknown actor %q (declare it under actors, or create it with fork)", n, s.Actor)
			continue
		case st == lifeUnborn:
			add(p, "step %d: actor %q is used before the fork that creates it", n, s.Actor)
			continue
		case st == lifeCrashed:
			add(p, "step %d: actor %q has crashed and can take no further step", n, s.Actor)
			continue
		case st == lifePaused && s.Do != ActResume:
			add(p, "step %d: actor %q is paused; only resume may come next for it", n, s.Actor)
			continue
		case st == lifeRunning && s.Do == ActResume:
			add(p, "step %d: actor %q is not paused, so it cannot resume", n, s.Actor)
			continue
		}
		switch s.Do {
		case ActPause:
			life[s.Actor] = lifePaused
		case ActResume:
			life[s.Actor] = lifeRunning
		case ActCrash:
			life[s.Actor] = lifeCrashed
		case ActFork:
			if s.Child == "" {
				continue
			}
			if st, ok := life[s.Child]; ok && st != lifeUnborn {
				add(s.Pos, "step %d: fork child %q already exists", n, s.Child)
				continue
			}
			life[s.Child] = lifeRunning
		}
	}
	return errs
}
