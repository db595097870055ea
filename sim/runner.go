package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Key name prefixes of a run's logical keys.
const (
	lockKeyPrefix     = "lock:"
	resourceKeyPrefix = "resource:"
	fenceKeyPrefix    = "fence:"
)

// IsFencingKey reports whether name (a logical key name, as frames show it)
// is a lock's fencing-token counter or the protected resource, which keeps
// the highest token it accepted. Lockstep gives both a cleanup TTL; the view
// says that a production counter and highest token must never expire or go
// back (a counter that restarts at 1 issues old tokens again, lesson 20).
func IsFencingKey(name string) bool {
	return strings.HasPrefix(name, fenceKeyPrefix) || strings.HasPrefix(name, resourceKeyPrefix)
}

// IsFencingCounterKey reports whether name (a logical key name) is a lock's
// fencing-token counter, whose TTL is the lesson's own when it sets
// Lesson.FencingCounterTTL (the bug lesson 19a shows), not Lockstep's
// cleanup TTL.
func IsFencingCounterKey(name string) bool { return strings.HasPrefix(name, fenceKeyPrefix) }

// keepBase is the TTL Lockstep gives the keys a lock does not lease (the
// protected resource, the fencing counter) on top of the lesson's total
// simulated time, so they outlive the run but never stay forever. The run
// needs no more: on a real Redis each step re-establishes the keys it
// touches from simulated time, so a key need not survive the wall-clock
// time between steps. What it bounds is how long a key stays when a run
// ends while Redis cannot be reached to delete it (hardening finding 9;
// it was 24 hours).
const keepBase = 10 * time.Minute

// ErrDone is returned by Runner.Step when every step has run.
var ErrDone = errors.New("sim: lesson finished")

// Runner runs one lesson on one Store, one step at a time. It is not safe for
// concurrent use; the web player gives each session its own Runner.
type Runner struct {
	lesson *Lesson
	store  Store
	v      variant
	info   VariantInfo // v.info(), built once: the step path reads it often
	rng    *rand.Rand
	src    *rand.PCG // rng's source, kept to save and restore its state

	now    int64 // simulated time, ms
	keepMS int64
	actors []*actor
	byID   map[string]*actor
	reads  []KeyRef
	keys   []KeyState // last snapshot, in reads order
	// fixedReads is how many of reads every step reads; past it come the
	// unlock-latch keys of a variant file, read while they matter
	// (readLatches), their unlock ids in latchIDs.
	fixedReads   int
	latchIDs     []string
	lastUnlockID string
	// lockRead is the index in reads (and keys) of each lock's key: a step
	// looks every lock's key up, and a scan of reads made a step's cost
	// grow with the square of the run's locks.
	lockRead map[string]int
	locks    []string // lock names in first-use order
	holdSeq  map[string]int
	current  map[string]*redisHold // the hold Redis keeps per lock, as taken
	written  map[string]int        // per lock: highest hold whose write was accepted
	frames   []Frame
	failed   []Failure

	// A run with a replica (Lesson.Replica) keeps, until its failover, the
	// state the replica holds beside the primary's: its keys (in reads
	// order, on simulated time like keys) and its own current and written.
	// After every step that sent a Replicated batch they are copies of the
	// primary's; unreplicated steps leave them; the failover installs them.
	replicaKeys    []KeyState
	replicaCurrent map[string]*redisHold
	replicaWritten map[string]int
	failedOver     bool
	// nodeKeys is what each node of a run with nodes (Lesson.Nodes) holds,
	// on simulated time, nodeKeys[0] being node 1's; keys is then what a
	// majority of them holds (quorumKeys). nil in every other run.
	nodeKeys [][]KeyState
	// countFrom, while set (holdsIn), is the key set a count kept in a
	// second key is read from (keyNamed) instead of keys: one node's.
	countFrom []KeyState
	// lag is true while an unreplicated step runs; replicated records that
	// the step being applied sent a Replicated batch.
	lag, replicated bool
	// lost are the beliefs the step being applied ended because a renewal
	// answered that the lock is lost (renew outcome LOST): Frame.Lost.
	lost []LostBelief
}

// redisHold is who took the hold Redis keeps for a lock.
type redisHold struct {
	seq     int
	context string
	owner   string
}

type actor struct {
	id, instance string
	name         Text
	status       string
	context      string // shared with inherit-forked descendants
	// thread is the thread id a variant file's owner may name: the
	// lesson's request_id when it fixes one (a pooled thread reused by
	// several tasks), otherwise the context's id.
	thread       string
	requestID    string
	parent, mode string
	grants       map[string]*grant
	// pending holds, per lock, the token of a two-step release whose DEL is
	// still to come (get-then-del).
	pending map[string]string
	// pendingWrite holds, per lock, a write whose token check passed and
	// whose write is still to come (check_then_write).
	pendingWrite map[string]pendingWrite
	// lostUnlock holds, per lock, the id of a release call whose reply was
	// lost; the actor's next release of the lock retries that very call.
	lostUnlock map[string]string
}

// gone reports whether the actor's task has ended (crashed or exited): it
// believes nothing any more and will release nothing.
func (a *actor) gone() bool { return a.status == StatusCrashed || a.status == StatusExited }

// grant is an actor's local record of a hold: the token it inherited or was
// given, and how deep its own call stack holds the lock.
type grant struct {
	token   string
	count   int
	fence   int64
	seq     int
	leaseMS int64
	// renewAt is when this hold's watchdog renews the lease next (simulated
	// ms); 0 when no watchdog runs for it.
	renewAt int64
	// takenBy is the first actor of another execution context whose
	// acquire created a hold of its own on the lock while this grant was
	// believed in (a hold of the holder's that had ended without its
	// knowing); "" while none did. A renewal that confirms the grant after
	// that breaks unnoticed-takeover (noticeTakeover).
	takenBy string
}

// Failure is an expectation that did not hold.
type Failure struct {
	File string
	Step int // 1-based
	Line int
	Want string
	Got  string
	// Missing are the expected violations not reported (nil when the
	// outcome failed), Reported the violations the step reported.
	Missing, Reported []string
}

func (f Failure) Error() string {
	return fmt.Sprintf("%s:%d: step %d: want %s, got %s", f.File, f.Line, f.Step, f.Want, f.Got)
}

// Message makes Failure a Coded error, for the catalogue: run.fail-outcome
// (the step's outcome was not the expected one: Want, Got) or
// run.fail-violations (an expected violation was not reported: Missing, the
// violations reported: Reported), each with File, Line and Step.
func (f Failure) Message() Msg {
	if f.Missing == nil {
		return M("run.fail-outcome", "File", f.File, "Line", f.Line, "Step", f.Step, "Want", f.Want, "Got", f.Got)
	}
	return M("run.fail-violations", "File", f.File, "Line", f.Line, "Step", f.Step, "Missing", List(f.Missing), "Reported", List(f.Reported))
}

// StepRunError is a step that could not run (Runner.Step): a store error,
// a *LimitError, a *backend.PermissionError, wrapped in Err.
type StepRunError struct {
	Step int // 1-based
	Do   Action
	Err  error
}

func (e *StepRunError) Error() string {
	return fmt.Sprintf("sim: step %d (%s): %v", e.Step, e.Do, e.Err)
}

// Unwrap returns the step's error.
func (e *StepRunError) Unwrap() error { return e.Err }

// NewRunner prepares a run of l on s. It validates l (see Validate), seeds the
// run's RNG from l.Seed, and records frame 0, the state before any step. It
// does no I/O: the store's keys of a new run are all absent.
func NewRunner(l *Lesson, s Store) (*Runner, error) {
	// Text fields do not change a run; their locales are the loader's concern.
	if err := (Options{AnyLocale: true}).Validate(l); err != nil {
		return nil, err
	}
	r := &Runner{
		lesson:  l,
		store:   s,
		v:       variantOf(l),
		src:     rand.NewPCG(l.Seed, 0x10c857e9),
		byID:    map[string]*actor{},
		holdSeq: map[string]int{},
		current: map[string]*redisHold{},
		written: map[string]int{},
	}
	r.info = r.v.info()
	if dv, ok := r.v.(*defVariant); ok {
		// A copy: a variant is shared by every run of it (the built-in
		// ones by the whole process), and keyOf reads this run's keys.
		run := *dv
		run.keyOf = r.keyNamed
		r.v = &run
	}
	r.rng = rand.New(r.src)
	var total time.Duration
	seenLock := map[string]bool{}
	writes := map[string]bool{}
	addLock := func(name string) {
		if !seenLock[name] {
			seenLock[name] = true
			r.locks = append(r.locks, name)
		}
	}
	addLock(l.Lock)
	for _, st := range l.Steps {
		total += st.By
		if st.Do != ActAdvance && st.Do != ActClockJump && st.Do != ActFailover && st.Do != ActLongScript && st.Do != ActRestart {
			addLock(st.Lock)
		}
		if st.Do == ActWrite || st.Do == ActFinishWrite {
			writes[st.Lock] = true
		}
	}
	r.keepMS = (keepBase + total).Milliseconds()
	r.lockRead = make(map[string]int, len(r.locks))
	for _, lock := range r.locks {
		r.lockRead[lock] = len(r.reads)
		r.reads = append(r.reads, KeyRef{Name: lockKeyPrefix + lock, Type: r.info.LockType})
		if x, ok := r.v.(extraKeys); ok {
			r.reads = append(r.reads, x.keys(lock)...)
		}
		if l.Fencing {
			r.reads = append(r.reads, KeyRef{Name: fenceKeyPrefix + lock, Type: TypeString})
		}
		if writes[lock] {
			r.reads = append(r.reads, KeyRef{Name: resourceKeyPrefix + lock, Type: TypeHash})
		}
	}
	r.fixedReads = len(r.reads)
	for _, k := range r.reads {
		r.keys = append(r.keys, Absent(k.Name))
	}
	if l.Replica {
		r.replicaKeys = slices.Clone(r.keys)
		r.replicaCurrent, r.replicaWritten = map[string]*redisHold{}, map[string]int{}
	}
	for range l.Nodes {
		r.nodeKeys = append(r.nodeKeys, slices.Clone(r.keys))
	}
	forked := map[string]bool{}
	for _, st := range l.Steps {
		if st.Do == ActFork {
			forked[st.Child] = true
		}
	}
	for _, a := range l.Actors {
		if !forked[a.ID] {
			r.addActor(a.ID, "", "")
		}
	}
	r.frames = append(r.frames, r.frame(nil, "", nil, nil, nil))
	return r, nil
}

// Lesson returns the lesson being run.
func (r *Runner) Lesson() *Lesson { return r.lesson }

// Frames returns the frames recorded so far: frame 0 and one per step taken.
// The slice must not be modified.
func (r *Runner) Frames() []Frame { return r.frames }

// Done reports whether every step has run.
func (r *Runner) Done() bool { return len(r.frames) > len(r.lesson.Steps) }

// Failures returns the expectations that did not hold so far.
func (r *Runner) Failures() []Failure { return r.failed }

// Keys returns the logical names of every key the run may create.
func (r *Runner) Keys() []string {
	out := make([]string, len(r.reads))
	for i, k := range r.reads {
		out[i] = k.Name
	}
	return out
}

func (r *Runner) spec(id string) ActorSpec {
	for _, a := range r.lesson.Actors {
		if a.ID == id {
			return a
		}
	}
	return ActorSpec{ID: id}
}

func (r *Runner) addActor(id, parent, mode string) *actor {
	sp := r.spec(id)
	a := &actor{id: id, name: sp.Name, instance: sp.Instance, status: StatusRunning, context: id, thread: id,
		grants: map[string]*grant{}, pending: map[string]string{}, pendingWrite: map[string]pendingWrite{}, lostUnlock: map[string]string{}}
	if p := r.byID[parent]; p != nil {
		a.parent, a.mode = parent, mode
		if a.instance == "" {
			a.instance = p.instance // a fork runs in its parent's process
		}
		if mode == "inherit" {
			a.context, a.requestID, a.thread = p.context, p.requestID, p.thread
			for lock, g := range p.grants {
				c := *g
				c.count = 0   // the child's own call stack holds nothing yet
				c.renewAt = 0 // the watchdog stays with the parent
				a.grants[lock] = &c
			}
		}
	} else if sp.RequestID != "" {
		a.requestID, a.thread = sp.RequestID, sp.RequestID
	} else {
		a.requestID = fmt.Sprintf("req-%06x", r.rng.Uint32()&0xffffff)
	}
	if a.instance == "" {
		a.instance = "proc-" + id
	}
	r.actors = append(r.actors, a)
	r.byID[id] = a
	return a
}

// newToken draws a fresh grant token from the run's RNG.
func (r *Runner) newToken() string { return fmt.Sprintf("t-%08x", r.rng.Uint32()) }

// newUnlockID draws a fresh unlock-call id from the run's RNG.
func (r *Runner) newUnlockID() string { return fmt.Sprintf("u-%08x", r.rng.Uint32()) }

// Run runs every remaining step. It returns the frames and the failed
// expectations; err is non-nil only when a step could not run.
func (r *Runner) Run(ctx context.Context) ([]Frame, error) {
	for !r.Done() {
		if _, err := r.Step(ctx); err != nil {
			return r.frames, err
		}
	}
	return r.frames, nil
}

// Step runs the next step and returns its frame. It returns ErrDone when the
// lesson has no step left, and a wrapped store error when Redis could not run
// the step; the run's state is then unchanged and Step may be tried again.
func (r *Runner) Step(ctx context.Context) (Frame, error) {
	if r.Done() {
		return Frame{}, ErrDone
	}
	idx := len(r.frames) // 1-based number of the step to run
	st := &r.lesson.Steps[idx-1]
	saved := r.save()
	if idx == 1 && r.onNodes() {
		// A store sets a run's nodes up at the run's first batch: send one
		// to every node before the first step, so that the run is on its
		// nodes whatever its steps (a nested acquire without a token, a
		// pause, makes no call).
		if err := r.verifyNodes(ctx); err != nil {
			r.restore(saved)
			return Frame{}, &StepRunError{Step: idx, Do: st.Do, Err: err}
		}
	}
	f, err := r.apply(ctx, st)
	if err != nil {
		r.restore(saved)
		return Frame{}, &StepRunError{Step: idx, Do: st.Do, Err: err}
	}
	r.frames = append(r.frames, f)
	if f.Check != nil && !f.Check.OK {
		r.failed = append(r.failed, r.failure(idx, st, f))
	}
	return f, nil
}

func (r *Runner) failure(idx int, st *Step, f Frame) Failure {
	fl := Failure{File: r.lesson.File, Step: idx, Line: st.Pos.Line}
	if f.Check.Expect != "" && f.Check.Expect != f.Check.Got {
		fl.Want, fl.Got = string(f.Check.Expect), string(f.Check.Got)
		return fl
	}
	fl.Want = "violation " + fmt.Sprint(f.Check.Missing)
	names := make([]string, len(f.Violations))
	for i, v := range f.Violations {
		names[i] = v.Name
	}
	fl.Got = fmt.Sprintf("violations %v", names)
	fl.Missing, fl.Reported = f.Check.Missing, names
	return fl
}
