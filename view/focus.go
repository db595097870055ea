package view

import (
	"lockstep/sim"
)

// focusLock is the lock the diagram shows: the step's, else the lesson's.
func (v *Step) focusLock() (sim.LockView, []sim.LockView) {
	f := v.frame()
	name := v.lesson.Lock
	if f.Step != nil && f.Step.Lock != "" {
		name = f.Step.Lock
	}
	var focus sim.LockView
	var others []sim.LockView
	found := false
	for _, l := range f.Locks {
		if l.Name == name && !found {
			focus, found = l, true
			continue
		}
		others = append(others, l)
	}
	if !found && len(f.Locks) > 0 {
		focus, others = f.Locks[0], f.Locks[1:]
	}
	if !found && len(f.Locks) == 0 {
		focus = sim.LockView{Name: name, State: sim.Idle}
	}
	return focus, others
}
