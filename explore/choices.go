package explore

import (
	"fmt"
	"slices"

	"lockstep/sim"
)

// Choice is one entry of the "fork here" menu: an action the timeline can
// take next. Package web labels it in the learner's language.
type Choice struct {
	// Actor groups the menu: the acting actor, "" for the clock and Redis.
	Actor string   `json:"actor,omitempty"`
	Spec  StepSpec `json:"spec"`
}

// Choices returns what timeline l can do after frame f, which is the state
// after step f.Index of l: for each actor still running, acquire and release
// of each lock, a write, pause, crash, exit and two forks (context inherited
// and lost), a release whose reply is lost while it holds, and finish-release
// while a two-step release waits (get-then-del), and, while a replica has
// not yet been promoted, acquire, release and write answered before the
// replica has them (unreplicated); on a timeline with nodes, instead of the
// write, an acquire each node does not answer (unreachable); resume for a
// paused actor; nothing for a crashed or exited one. Then the clock:
// advance by half the lease, just past the lease and by 1 s; a clock jump
// just past the lease; failover while the replica has not been promoted;
// and a restart of each node. Every choice passes
// Fork at f.Index.
func Choices(l *sim.Lesson, f sim.Frame) []Choice {
	at := min(max(f.Index, 0), len(l.Steps))
	info, _ := sim.LessonVariant(l)
	locks := []string{l.Lock}
	for _, s := range l.Steps[:at] {
		if s.Lock != "" && !slices.Contains(locks, s.Lock) {
			locks = append(locks, s.Lock)
		}
	}
	replicating := l.Replica && !slices.ContainsFunc(l.Steps[:at], func(s sim.Step) bool { return s.Do == sim.ActFailover })
	taken := map[string]bool{}
	for _, a := range l.Actors {
		taken[a.ID] = true
	}
	for _, s := range l.Steps {
		if s.Do == sim.ActFork {
			taken[s.Child] = true
		}
	}
	var out []Choice
	add := func(actor string, s StepSpec) {
		out = append(out, Choice{Actor: actor, Spec: s})
	}
	for _, a := range f.Actors {
		switch a.Status {
		case sim.StatusPaused:
			add(a.ID, StepSpec{Actor: a.ID, Do: sim.ActResume})
			continue
		case sim.StatusRunning:
		default:
			continue
		}
		for _, lock := range locks {
			spec := StepSpec{Actor: a.ID, Lock: lockField(l, lock)}
			hold := holdOn(a, lock)
			spec.Do = sim.ActAcquire
			add(a.ID, spec)
			spec.Do = sim.ActRelease
			add(a.ID, spec)
			if hold != nil && hold.Count > 0 && !hold.Pending {
				lost := spec
				lost.ReplyLost = true
				add(a.ID, lost)
			}
			if info.TwoStepRelease && hold != nil && hold.Pending {
				spec.Do = sim.ActFinishRelease
				add(a.ID, spec)
			}
			if l.Nodes > 0 {
				// Redlock's nodes: an acquire one node does not answer, and
				// no resource to write to.
				for n := 1; n <= l.Nodes; n++ {
					add(a.ID, StepSpec{Actor: a.ID, Lock: lockField(l, lock), Do: sim.ActAcquire, Unreachable: []int{n}})
				}
				continue
			}
			spec.Do = sim.ActWrite
			spec.Value = fmt.Sprintf("%s@%d", a.ID, at+1)
			add(a.ID, spec)
			if l.CheckThenWrite && slices.Contains(a.PendingWrites, lock) {
				add(a.ID, StepSpec{Actor: a.ID, Lock: lockField(l, lock), Do: sim.ActFinishWrite})
			}
			if replicating {
				// The same three, answered before the replica has them.
				for _, do := range []sim.Action{sim.ActAcquire, sim.ActRelease, sim.ActWrite} {
					u := StepSpec{Actor: a.ID, Lock: lockField(l, lock), Do: do, Unreplicated: true}
					if do == sim.ActWrite {
						u.Value = spec.Value
					}
					add(a.ID, u)
				}
			}
		}
		add(a.ID, StepSpec{Actor: a.ID, Do: sim.ActPause})
		add(a.ID, StepSpec{Actor: a.ID, Do: sim.ActCrash})
		add(a.ID, StepSpec{Actor: a.ID, Do: sim.ActExit})
		child := freeChild(a.ID, taken)
		add(a.ID, StepSpec{Actor: a.ID, Do: sim.ActFork, Child: child, Context: "inherit"})
		add(a.ID, StepSpec{Actor: a.ID, Do: sim.ActFork, Child: child, Context: "lost"})
	}
	lease := l.Lease.Milliseconds()
	// Just past the lease: a second past it, or a tenth of it for a lease
	// under ten seconds.
	expire := lease + min(1000, max(1, lease/10))
	seen := map[int64]bool{}
	for _, by := range []int64{max(lease/2, 1), expire, 1000} {
		if !seen[by] && by <= MaxAdvanceMS {
			seen[by] = true
			out = append(out, Choice{Spec: StepSpec{Do: sim.ActAdvance, ByMS: by}})
		}
	}
	if expire <= MaxAdvanceMS {
		out = append(out, Choice{Spec: StepSpec{Do: sim.ActClockJump, ByMS: expire}})
	}
	if replicating {
		out = append(out, Choice{Spec: StepSpec{Do: sim.ActFailover}})
	}
	for n := 1; n <= l.Nodes; n++ {
		out = append(out, Choice{Spec: StepSpec{Do: sim.ActRestart, Node: n}})
	}
	return out
}

// lockField is a spec's lock: "" for the lesson's default.
func lockField(l *sim.Lesson, lock string) string {
	if lock == l.Lock {
		return ""
	}
	return lock
}

func holdOn(a sim.ActorView, lock string) *sim.HoldView {
	for i := range a.Holds {
		if a.Holds[i].Lock == lock {
			return &a.Holds[i]
		}
	}
	return nil
}

// freeChild names a new fork child of parent: parent-1, parent-2, ...
func freeChild(parent string, taken map[string]bool) string {
	base := trimID(parent, 28)
	for n := 1; ; n++ {
		id := fmt.Sprintf("%s-%d", base, n)
		if !taken[id] {
			return id
		}
	}
}
