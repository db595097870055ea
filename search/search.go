package search

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"lockstep/sim"
)

// Config says how to run a search.
type Config struct {
	// Backend runs the transitions and the replays of counterexamples;
	// nil means Embedded().
	Backend *Backend
	// Workers is how many runners expand a depth's states at once, each on
	// a store of its own; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// MaxStates stops the search after the depth at which it has seen more
	// distinct states than this (the result is then not Complete); 0 means
	// no bound.
	MaxStates int
	// MaxBytes stops the search once the states it keeps take more than
	// this many bytes, as stateBytes counts them (the result is then not
	// Complete, End EndMaxBytes): checked as each state of a depth is
	// counted, in frontier order, like MaxStates. 0 means DefaultMaxBytes,
	// a negative number no bound. A state's cost grows with its keys'
	// values, which a learner's lock chooses (a fresh-eyes review of issue
	// 37: one search reached about 1.1 GB within its state bound).
	MaxBytes int64
	// RerunPrefixes makes every transition start from a new runner that
	// re-runs the whole timeline before it, instead of going back to the
	// saved state: what branching by snapshot saves, for the bench only.
	// The result is the same, script calls apart.
	RerunPrefixes bool
	// Progress, when set, is called after each depth with what the search
	// has done so far (from Run's goroutine, in depth order).
	Progress func(Progress)
	// StopOn, when set, says whether a step's error ends the search as a
	// stop (End is EndStopped, the result holds what was found, and Run's
	// error wraps err) rather than as a failure: a budget's refusal
	// (searchpage: the Lua sandbox's time an address may take).
	StopOn func(err error) bool
}

// Progress is how far a search has got: every timeline of up to Depth
// steps is tried, States distinct states and Transitions steps so far.
type Progress struct {
	Depth, States, Transitions int
	// Broken counts the invariants asked that some timeline broke.
	Broken int
	// Bytes is what the states kept so far were counted to take
	// (Result.Bytes).
	Bytes int64
}

// Result is what a search found.
type Result struct {
	File *File
	// Complete is true when every timeline up to File.Depth was covered.
	Complete bool
	// Reached is the deepest depth whose timelines were all tried.
	Reached int
	// States counts the distinct states seen (the first one included),
	// Transitions the steps run, ScriptCalls the lock-script calls sent.
	States, Transitions int
	ScriptCalls         int64
	// Bytes is what the states kept were counted to take (stateBytes).
	Bytes int64
	// Found maps each invariant asked that some timeline breaks to its
	// shortest breaking timeline; invariants not broken are absent.
	Found map[string]*Counterexample
	// End says why the search ended after depth Reached.
	End End
}

// End is why a search ended.
type End string

// The ends of a search.
const (
	// EndComplete: every timeline up to the file's depth was tried (or no
	// state had a move left before it); Complete is true.
	EndComplete End = "complete"
	// EndAllBroken: every invariant asked was broken before the last
	// depth, so nothing was left to look for; the timelines past Reached
	// were not tried.
	EndAllBroken End = "all-broken"
	// EndMaxStates: more distinct states than Config.MaxStates were seen.
	EndMaxStates End = "max-states"
	// EndMaxBytes: the states kept took more than Config.MaxBytes.
	EndMaxBytes End = "max-bytes"
	// EndStopped: the context ended during depth Reached+1 (Run's error
	// wraps the context's: context.Canceled, context.DeadlineExceeded).
	EndStopped End = "stopped"
)

// searchSeed seeds the RNG of every search run and of its counterexamples'
// lessons, so a lesson replays the tokens the search drew.
const searchSeed = 0x5ea4c4

// node is a state the search reached first by one timeline: the last step
// of that timeline and the node it was taken from.
type node struct {
	parent *node
	step   sim.Step
	depth  int
	// branch is the runner's state here; dropped once the node is expanded.
	branch *sim.Branch
	// actors are what the moves depend on here, per actor of the file.
	actors actorStates
}

// child is one transition a worker ran from a node.
type child struct {
	step       sim.Step
	id         stateID
	branch     *sim.Branch
	actors     actorStates
	violations []string
	// fresh is true when the state was not seen before this depth.
	fresh bool
	// bytes is what keeping the state costs (stateBytes), when fresh.
	bytes int64
}

// worker is one runner on a store of its own.
type worker struct {
	r     *sim.Runner
	store *counting
	close func()
	// rerun, shape and opts: Config.RerunPrefixes.
	rerun bool
	shape *sim.Lesson
	opts  sim.BranchOptions
}

// Run searches f (a File from Load or Parse) breadth-first, depth by depth,
// so that the timeline reported for each invariant is a shortest one; among
// timelines of one length it reports the first in the order the moves are
// tried (actors in file order, each with the file's moves in their order, then the
// clock advances in file order). The result does not depend on Workers or
// on the backend. Every counterexample is replayed as a lesson on the
// backend and must pass before it is reported.
//
// When ctx ends while the search expands a depth (a Stop button, a time
// cap), Run returns what the depths it finished found, not Complete, with
// their counterexamples (replayed regardless of ctx: at most one short
// lesson per invariant), together with an error wrapping ctx's.
func Run(ctx context.Context, f *File, cfg Config) (*Result, error) {
	be := cfg.Backend
	if be == nil {
		be = Embedded()
	}
	n := cfg.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	shape := lessonOf(f, "search", nil)
	o := sim.BranchOptions{Writes: slices.Contains(f.Moves, MoveWrite), Horizon: time.Duration(f.Depth) * maxAdvance(f)}
	workers := make([]*worker, n)
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.close()
			}
		}
	}()
	for i := range workers {
		st, closeFn, err := be.worker(ctx)
		if err != nil {
			return nil, err
		}
		c := &counting{Store: st}
		workers[i] = &worker{store: c, close: closeFn, rerun: cfg.RerunPrefixes, shape: shape, opts: o}
		r, err := sim.NewBranchRunner(shape, c, o)
		if err != nil {
			return nil, fmt.Errorf("search: %s: %w", f.Path, err)
		}
		workers[i].r = r
	}
	res := &Result{File: f, Found: map[string]*Counterexample{}}
	root := &node{branch: workers[0].r.Branch(), actors: actorsOf(f, workers[0].r.Frames()[0].Actors)}
	seen := map[stateID]bool{idOf(workers[0].r.StateKey(horizonMS(f, 0))): true}
	res.States = 1
	frontier := []*node{root}
	paths := map[string][]sim.Step{} // invariant -> shortest breaking timeline
	var stopped error
	partial := false // a bound was reached inside a depth
	maxBytes := cfg.maxBytes()
	res.Bytes = stateBytes(nil, nil, true)
	overBytes := func() bool { return maxBytes > 0 && res.Bytes > maxBytes }
	for depth := 1; depth <= f.Depth && len(frontier) > 0; depth++ {
		var b budget
		if cfg.MaxStates > 0 {
			b.states = max(1, cfg.MaxStates-len(seen))
		}
		if maxBytes > 0 {
			b.bytes = max(1, maxBytes-res.Bytes)
		}
		results, cut, err := expand(ctx, f, workers, frontier, seen, b)
		if err != nil && ctx.Err() != nil {
			stopped = fmt.Errorf("search: %s: stopped during depth %d: %w", f.Path, depth, ctx.Err())
			break
		}
		if err != nil && cfg.StopOn != nil && cfg.StopOn(err) {
			stopped = fmt.Errorf("search: %s: stopped during depth %d: %w", f.Path, depth, err)
			break
		}
		if err != nil {
			return nil, err
		}
		var next []*node
		for i, p := range frontier[:cut] {
			for _, c := range results[i] {
				res.Transitions++
				for _, v := range c.violations {
					if _, done := paths[v]; !done && slices.Contains(f.Invariants, v) {
						paths[v] = append(pathTo(p), c.step)
					}
				}
				if !c.fresh || seen[c.id] {
					continue
				}
				seen[c.id] = true
				res.Bytes += c.bytes
				if c.branch != nil {
					next = append(next, &node{parent: p, step: c.step, depth: depth, branch: c.branch, actors: c.actors})
				}
			}
		}
		res.States = len(seen)
		if cut < len(frontier) {
			// Stopped inside the depth: its first cut nodes are counted
			// (in frontier order, so every run stops at the same place).
			partial = true
			break
		}
		res.Reached = depth
		frontier = next
		if cfg.Progress != nil {
			cfg.Progress(Progress{Depth: depth, States: res.States, Transitions: res.Transitions, Broken: len(paths), Bytes: res.Bytes})
		}
		if len(paths) == len(f.Invariants) || cfg.MaxStates > 0 && res.States > cfg.MaxStates || overBytes() {
			break
		}
	}
	res.Complete = !partial && (res.Reached == f.Depth || len(frontier) == 0 && len(paths) < len(f.Invariants))
	switch {
	case stopped != nil:
		res.End = EndStopped
	case partial && overBytes():
		res.End = EndMaxBytes
	case partial:
		res.End = EndMaxStates
	case res.Complete:
		res.End = EndComplete
	case len(paths) == len(f.Invariants):
		res.End = EndAllBroken
	case overBytes():
		res.End = EndMaxBytes
	default:
		res.End = EndMaxStates
	}
	for _, w := range workers {
		res.ScriptCalls += w.store.calls
	}
	cctx := ctx
	if stopped != nil {
		cctx = context.WithoutCancel(ctx)
	}
	for _, inv := range f.Invariants {
		if p, ok := paths[inv]; ok {
			cx, err := counterexample(cctx, be, f, inv, p)
			if err != nil {
				return nil, err
			}
			res.Found[inv] = cx
		}
	}
	return res, stopped
}

// expand runs every move from every node of the frontier, on the workers
// in parallel, and returns each node's transitions in move order. A child
// whose state seen already holds is returned without its branch.
//
// b bounds the new states of the depth as they are found, not after it
// (issue 37, item 6: one depth of a search reached 1.95 GB): the nodes'
// new states are counted in frontier order, and once the first cut nodes
// have more than b.states of them, or their bytes (stateBytes) more than
// b.bytes, no node past them is started and cut says how many of results
// count; else cut is len(frontier).
func expand(ctx context.Context, f *File, workers []*worker, frontier []*node, seen map[stateID]bool, b budget) (results [][]child, cut int, err error) {
	results = make([][]child, len(frontier))
	var next atomic.Int64
	var cutAt atomic.Int64
	cutAt.Store(int64(len(frontier)))
	var countMu sync.Mutex
	done := make([]bool, len(frontier))
	counted := 0 // frontier[:counted] are done and counted
	fresh := map[stateID]bool{}
	var bytes int64
	finished := func(i int) {
		countMu.Lock()
		defer countMu.Unlock()
		done[i] = true
		for counted < len(frontier) && done[counted] && int64(counted) < cutAt.Load() {
			for _, c := range results[counted] {
				if c.fresh && !fresh[c.id] {
					fresh[c.id] = true
					bytes += c.bytes
				}
			}
			counted++
			over := b.states > 0 && len(fresh) > b.states || b.bytes > 0 && bytes > b.bytes
			if over && counted < len(frontier) {
				cutAt.Store(int64(counted))
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(workers))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wi, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(frontier) || int64(i) >= cutAt.Load() || ctx.Err() != nil {
					return
				}
				cs, err := w.expandNode(ctx, f, frontier[i], seen)
				if err != nil {
					errs[wi] = err
					cancel()
					return
				}
				results[i] = cs
				// Its transitions are run: the saved state can go now
				// rather than after the whole depth (less for the
				// collector to scan meanwhile).
				frontier[i].branch = nil
				finished(i)
			}
		}()
	}
	wg.Wait()
	if err := firstCause(errs); err != nil {
		return nil, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	return results, int(cutAt.Load()), nil
}

// budget is what is left of a search's bounds for one depth: new states
// and their bytes (stateBytes); 0 is no bound.
type budget struct {
	states int
	bytes  int64
}

func (w *worker) expandNode(ctx context.Context, f *File, p *node, seen map[stateID]bool) ([]child, error) {
	var out []child
	for _, st := range moves(f, p) {
		if err := w.goTo(ctx, p); err != nil {
			return nil, fmt.Errorf("search: %s: %w", f.Path, err)
		}
		fr, err := w.r.Extend(ctx, &st)
		if err != nil {
			if ae := advanceError(f, st, err); ae != nil {
				return nil, ae
			}
			return nil, fmt.Errorf("search: %s: %s after %d steps: %w", f.Path, DescribeStep(st), p.depth, err)
		}
		c := child{step: st, id: idOf(w.r.StateKey(horizonMS(f, p.depth+1)))}
		for _, v := range fr.Violations {
			if !slices.Contains(c.violations, v.Name) {
				c.violations = append(c.violations, v.Name)
			}
		}
		c.fresh = !seen[c.id]
		if c.fresh && p.depth+1 < f.Depth {
			c.branch, c.actors = w.r.Branch(), actorsOf(f, fr.Actors)
			c.bytes = stateBytes(c.branch.Keys(), fr.Locks, true)
		} else if c.fresh {
			c.bytes = stateBytes(nil, nil, false)
		}
		out = append(out, c)
	}
	return out, nil
}

// goTo puts the worker's runner into the state of node p.
func (w *worker) goTo(ctx context.Context, p *node) error {
	if !w.rerun {
		w.r.Restore(p.branch)
		return nil
	}
	r, err := sim.NewBranchRunner(w.shape, w.store, w.opts)
	if err != nil {
		return err
	}
	for _, st := range pathTo(p) {
		if _, err := r.Extend(ctx, &st); err != nil {
			return err
		}
	}
	w.r = r
	return nil
}

// maxAdvance is the largest clock move of f.
func maxAdvance(f *File) time.Duration {
	var m time.Duration
	for _, d := range f.Advance {
		m = max(m, d)
	}
	return m
}

// horizonMS is the most simulated time the steps after depth can pass.
func horizonMS(f *File, depth int) int64 {
	return int64(f.Depth-depth) * maxAdvance(f).Milliseconds()
}

// pathTo returns the steps of the timeline that reached n.
func pathTo(n *node) []sim.Step {
	var out []sim.Step
	for ; n != nil && n.parent != nil; n = n.parent {
		out = append(out, n.step)
	}
	slices.Reverse(out)
	return out
}
