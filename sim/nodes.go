package sim

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"
)

// A lesson with nodes (Lesson.Nodes, lesson field `nodes: N`) runs on N
// independent Redis primaries with no replication between them: Redlock's
// servers (Redis documentation, "Distributed locks with Redis"). The
// scripts are the variant's own, sent to each node in turn; the majority
// counting is the client's, here:
//
//   - an acquire that reaches Redis sends the variant's acquire to every
//     node the step does not name unreachable, and holds the lock when at
//     least Quorum(N) nodes granted it (ACQUIRED, or REENTERED for a nested
//     acquire); otherwise it is BUSY (LOST when a majority said LOST) and
//     sends the variant's release to every reachable node, those that
//     refused it too (Redlock: a failed client tries to unlock all the
//     instances, even those it believes it did not lock), so that its
//     failed attempt leaves nothing behind. The calls of one step take no simulated time,
//     so the validity time (the lease minus the time the acquire took minus
//     the clock drift) is the lease;
//   - a release sends the variant's release to every reachable node, and
//     when at least Quorum(N) of them released a hold or a count of it, is
//     STILL_HELD while a majority still holds the owner id, RELEASED
//     otherwise (NOT_OWNER without such a majority);
//   - a watchdog's renewal goes to every node, and renews when a majority
//     did;
//   - a restart step empties one node, as a Redis without persistence
//     comes back after a crash; the clients are not told.
//
// The runner keeps each node's keys (nodeKeys) on simulated time, and
// r.keys, which the diagram and the invariants read, is what a majority of
// the nodes holds (quorumKeys), agreeing on a lock by owner id (quorumLock).

// MinNodes and MaxNodes bound a lesson's `nodes`.
const (
	MinNodes = 3
	MaxNodes = 7
)

// Quorum is how many of n nodes a Redlock client needs: a majority, n/2+1.
func Quorum(n int) int { return n/2 + 1 }

// onNodes reports whether the run has nodes.
func (r *Runner) onNodes() bool { return r.lesson.Nodes > 0 }

// reachable reports whether step st's calls reach node n.
func reachable(st *Step, n int) bool { return !slices.Contains(st.Unreachable, n) }

// execOn runs calls on node n (1-based) from that node's simulated state,
// installs what it reads back as the node's keys, and makes r.keys the
// majority's view again.
func (r *Runner) execOn(ctx context.Context, n int, calls ...*Call) ([]Reply, error) {
	b := &Batch{Prior: r.nodeKeys[n-1], Read: r.reads, Nodes: r.lesson.Nodes, Node: n}
	for _, c := range calls {
		b.Calls = append(b.Calls, *c)
	}
	res, err := r.runBatch(ctx, b, calls)
	if err != nil {
		return nil, fmt.Errorf("node %d: %w", n, err)
	}
	if err := checkTTLs(res.Keys); err != nil {
		return nil, fmt.Errorf("node %d: %w", n, err)
	}
	r.nodeKeys[n-1] = res.Keys
	r.keys = r.quorumKeys()
	return res.Replies, nil
}

// verifyNodes reads every node back after simulated time moved, and checks
// that each holds what the simulation says (as advance does on one server).
func (r *Runner) verifyNodes(ctx context.Context) error {
	for n := 1; n <= r.lesson.Nodes; n++ {
		want := r.nodeKeys[n-1]
		res, err := r.store.Exec(ctx, &Batch{Prior: want, Read: r.reads, Nodes: r.lesson.Nodes, Node: n})
		if err != nil {
			return fmt.Errorf("node %d: %w", n, err)
		}
		for i := range want {
			if i >= len(res.Keys) || !sameKey(res.Keys[i], want[i]) {
				return fmt.Errorf("node %d disagrees with the simulated clock: want %s, got %v", n, formatKey(want[i]), res.Keys)
			}
		}
		r.nodeKeys[n-1] = res.Keys
	}
	r.keys = r.quorumKeys()
	return nil
}

// restart empties node n: the store replaces its server by a fresh one, and
// reads it back, which must hold nothing.
func (r *Runner) restart(ctx context.Context, n int) error {
	empty := make([]KeyState, len(r.reads))
	for i, k := range r.reads {
		empty[i] = Absent(k.Name)
	}
	res, err := r.store.Exec(ctx, &Batch{Prior: empty, Read: r.reads, Nodes: r.lesson.Nodes, Node: n, Restart: true})
	if err != nil {
		return fmt.Errorf("restart node %d: %w", n, err)
	}
	if len(res.Keys) != len(empty) {
		return fmt.Errorf("store answered %d keys for %d at the restart of node %d", len(res.Keys), len(empty), n)
	}
	for _, k := range res.Keys {
		if k.Exists() {
			return fmt.Errorf("node %d still holds %s after its restart", n, formatKey(k))
		}
	}
	r.nodeKeys[n-1] = res.Keys
	r.keys = r.quorumKeys()
	return nil
}

// quorumAcquire sends an acquire's call to every reachable node and counts
// the grants (ACQUIRED or REENTERED). With a majority of grants it returns
// ACQUIRED when a majority created the hold, REENTERED otherwise (a nested
// acquire); without, LOST when a majority answered LOST and BUSY otherwise,
// after sending the release to every reachable node, granted or not (on a
// node that did not grant, a compare-and-delete finds another owner and
// changes nothing). It returns one call record per call, each with its
// node and its own outcome.
//
// A variant whose release deletes without comparing (setnx-del's DEL)
// deletes, on a node that refused, the hold another execution context
// took there: events reports that wrong-owner-release.
func (r *Runner) quorumAcquire(ctx context.Context, st *Step, op lockOp, g *grant, call *Call) (out Outcome, calls []CallRecord, events []Violation, err error) {
	var granted []int
	count := map[Outcome]int{}
	for n := 1; n <= r.lesson.Nodes; n++ {
		if !reachable(st, n) {
			continue
		}
		replies, err := r.execOn(ctx, n, call)
		if err != nil {
			return "", nil, nil, err
		}
		out, err := r.outcomeOn(n, func(keys []KeyState) (Outcome, error) {
			return r.v.acquireOutcome(op, g, replies[0], keys[r.lockRead[op.lock]])
		})
		if err != nil {
			return "", nil, nil, err
		}
		rec := record(call, replies[0], out)
		rec.Node = n
		calls = append(calls, rec)
		count[out]++
		if out == Acquired || out == Reentered {
			granted = append(granted, n)
		}
	}
	q := Quorum(r.lesson.Nodes)
	switch {
	case count[Acquired] >= q:
		return Acquired, calls, nil, nil
	case len(granted) >= q:
		return Reentered, calls, nil, nil
	}
	// No majority: the client undoes its attempt on every node it reaches,
	// as Redlock says, not only those that said yes; one that breaks the
	// rule (keep_partial) leaves its grants until their lease ends.
	out = Busy
	if count[Lost] >= q {
		out = Lost
	}
	if st.KeepPartial {
		return out, calls, nil, nil
	}
	undo := r.v.release(op, &grant{token: op.owner, count: 1, leaseMS: op.leaseMS})
	if undo == nil {
		return out, calls, nil, nil
	}
	a, li := r.byID[st.Actor], r.lockRead[op.lock]
	for n := 1; n <= r.lesson.Nodes; n++ {
		if !reachable(st, n) {
			continue
		}
		beforeKeys := r.nodeKeys[n-1]
		before := beforeKeys[li]
		uo, rec, err := r.releaseOn(ctx, n, op, nil, undo)
		if err != nil {
			return "", nil, nil, err
		}
		calls = append(calls, rec)
		h := r.current[op.lock]
		if len(events) == 0 && (uo == Released || uo == StillHeld) && h != nil && h.context != a.context &&
			r.holdsIn(beforeKeys, before)[h.owner] > 0 && !sameKey(before, r.nodeKeys[n-1][li]) {
			taker := r.actorsInContext(h.context)
			events = append(events, violation(InvWrongOwnerRelease, op.lock, append([]string{a.id}, taker...),
				explainWrongOwnerRelease(a.id, taker, op.lock, uo)))
		}
	}
	return out, calls, events, nil
}

// quorumRelease sends a release's call to every reachable node. When a
// majority released the caller's hold or one of its counts (RELEASED or
// STILL_HELD on at least Quorum nodes), it returns STILL_HELD while a
// majority of the nodes still holds the caller's owner id afterwards (the
// majority's view, quorumKeys) and RELEASED once none does; otherwise
// NOT_OWNER. It returns one call record per call.
func (r *Runner) quorumRelease(ctx context.Context, st *Step, op lockOp, g *grant, call *Call) (Outcome, []CallRecord, error) {
	var calls []CallRecord
	count := map[Outcome]int{}
	for n := 1; n <= r.lesson.Nodes; n++ {
		if !reachable(st, n) {
			continue
		}
		out, rec, err := r.releaseOn(ctx, n, op, g, call)
		if err != nil {
			return "", nil, err
		}
		calls = append(calls, rec)
		count[out]++
	}
	switch {
	case count[Released]+count[StillHeld] < Quorum(r.lesson.Nodes):
		return NotOwner, calls, nil
	case r.v.holds(r.lockKey(op.lock))[op.owner] > 0:
		// A majority still holds the caller's owner id (say a hold it
		// deleted on one node and lowered on another, while a third node
		// kept a higher count): the lock is still held.
		return StillHeld, calls, nil
	}
	return Released, calls, nil
}

// outcomeOn reads an outcome of node n with read, given the node's keys,
// and with a count kept in a second key read from them too (holdsIn).
func (r *Runner) outcomeOn(n int, read func(keys []KeyState) (Outcome, error)) (Outcome, error) {
	keys := r.nodeKeys[n-1]
	prev := r.countFrom
	r.countFrom = keys
	defer func() { r.countFrom = prev }()
	return read(keys)
}

// releaseOn sends a release's call to node n and reads the node's outcome
// (g: the caller's grant; nil for an acquire's undo), recorded with its
// node.
func (r *Runner) releaseOn(ctx context.Context, n int, op lockOp, g *grant, call *Call) (Outcome, CallRecord, error) {
	replies, err := r.execOn(ctx, n, call)
	if err != nil {
		return "", CallRecord{}, err
	}
	out, err := r.outcomeOn(n, func(keys []KeyState) (Outcome, error) {
		return r.v.releaseOutcome(op, g, replies[0], keys[r.lockRead[op.lock]])
	})
	if err != nil {
		return "", CallRecord{}, err
	}
	rec := r.recordRelease(call, replies[0], out)
	rec.Node = n
	return out, rec, nil
}

// quorumRenew sends a watchdog's renewal to every node (a renewal knows no
// partition: it is sent at its own time, not at a step's). It returns
// RENEWED when a majority renewed, otherwise LOST when a node's reply
// reads as LOST (a client that needs a majority learns it holds none:
// redsync's Extend), GONE otherwise; and one call record per node.
func (r *Runner) quorumRenew(ctx context.Context, call *Call) (Outcome, []CallRecord, error) {
	var calls []CallRecord
	renewed, lost := 0, false
	for n := 1; n <= r.lesson.Nodes; n++ {
		replies, err := r.execOn(ctx, n, call)
		if err != nil {
			return "", nil, err
		}
		out, err := r.renewOutcome(replies[0])
		if err != nil {
			return "", nil, err
		}
		rec := record(call, replies[0], out)
		rec.Node = n
		calls = append(calls, rec)
		if out == Renewed {
			renewed++
		}
		lost = lost || out == Lost
	}
	switch {
	case renewed >= Quorum(r.lesson.Nodes):
		return Renewed, calls, nil
	case lost:
		return Lost, calls, nil
	}
	return Gone, calls, nil
}

// quorumKeys is what a majority of the nodes holds: each lock's key as
// quorumLock gives it, every other key (fencing, latches) as quorumKeys
// does.
func (r *Runner) quorumKeys() []KeyState {
	out := quorumKeys(r.nodeKeys)
	for _, i := range r.lockRead {
		if i < len(out) {
			out[i] = r.quorumLock(i)
		}
	}
	return out
}

// quorumLock is what a majority of the nodes holds of the lock key at index
// i, agreeing by owner, not by the whole key: an owner id the variant reads
// as holding (holds, a count above 0) on at least Quorum nodes holds the
// lock, with the count at least Quorum of them keep (the Quorum-th highest
// of their counts) and the PTTL until fewer than a majority keep it (the
// Quorum-th longest of their PTTLs). Nodes that count in Redis differently
// (a nested acquire that missed a node, a release that reached only some)
// still agree on who holds. The key is absent when no owner id is on a
// majority. A key that keeps one owner per key is one such node's key
// (one holding the majority's count); a hash with a field per owner keeps
// the fields of the owners a majority holds, with their majority counts,
// and the key's PTTL is the shortest of theirs.
func (r *Runner) quorumLock(i int) KeyState {
	q := Quorum(len(r.nodeKeys))
	name := r.nodeKeys[0][i].Name
	type held struct {
		count, pttl int64
		node        int
	}
	per := map[string][]held{}
	for n, keys := range r.nodeKeys {
		k := keys[i]
		if !k.Exists() {
			continue
		}
		for o, c := range r.holdsIn(keys, k) {
			if c > 0 {
				per[o] = append(per[o], held{c, k.PTTL, n})
			}
		}
	}
	var owners []string
	for o, hs := range per {
		if len(hs) >= q {
			owners = append(owners, o)
		}
	}
	if len(owners) == 0 {
		return Absent(name)
	}
	sort.Strings(owners)
	counts := map[string]int64{}
	var rep KeyState // a node's key holding the first owner's count
	found := false
	pttl := int64(-1)
	for _, o := range owners {
		hs := per[o]
		sort.Slice(hs, func(a, b int) bool { return hs[a].count > hs[b].count })
		c := hs[q-1].count
		counts[o] = c
		if !found {
			for _, h := range hs {
				if h.count == c {
					rep, found = r.nodeKeys[h.node][i], true
					break
				}
			}
		}
		sort.Slice(hs, func(a, b int) bool { return hs[a].pttl > hs[b].pttl })
		if p := hs[q-1].pttl; pttl < 0 || p < pttl {
			pttl = p
		}
	}
	out := rep
	out.PTTL = pttl
	if d, ok := r.v.(*defVariant); ok && d.d.Lock.Layout == LayoutFieldPerOwner {
		// Keep the representative's other fields; the owners' fields are
		// the majority's.
		var fields []Field
		for _, f := range rep.Fields {
			if _, isOwner := hashCounts(KeyState{Fields: []Field{f}})[f.Name]; isOwner {
				continue
			}
			fields = append(fields, f)
		}
		for _, o := range owners {
			fields = append(fields, Field{Name: o, Value: strconv.FormatInt(counts[o], 10)})
		}
		sort.Slice(fields, func(a, b int) bool { return fields[a].Name < fields[b].Name })
		out.Fields = fields
	}
	return out
}

// quorumKeys is what a majority of the nodes holds of keys that are not a
// lock's: per key (the nodes' keys are in one order), the contents at least Quorum nodes agree on, with
// the PTTL until fewer than a majority keep them (the Quorum-th longest of
// their PTTLs), or the key absent when no majority agrees on contents.
func quorumKeys(nodes [][]KeyState) []KeyState {
	if len(nodes) == 0 {
		return nil
	}
	q := Quorum(len(nodes))
	out := make([]KeyState, len(nodes[0]))
	for i := range nodes[0] {
		out[i] = Absent(nodes[0][i].Name)
		for _, cand := range nodes {
			k := cand[i]
			if !k.Exists() {
				continue
			}
			var pttls []int64
			for _, other := range nodes {
				if other[i].SameContents(k) {
					pttls = append(pttls, other[i].PTTL)
				}
			}
			if len(pttls) < q {
				continue
			}
			sort.Slice(pttls, func(a, b int) bool { return pttls[a] > pttls[b] })
			out[i] = k
			out[i].PTTL = pttls[q-1]
			break
		}
	}
	return out
}

// cloneNodes copies the nodes' key lists (each list is replaced, never
// changed in place, so a shallow copy per node suffices).
func cloneNodes(nodes [][]KeyState) [][]KeyState {
	if nodes == nil {
		return nil
	}
	return slices.Clone(nodes)
}

// jumpNode makes node n's clock jump forward by ms (a clock-jump step with
// node): every TTL on that node drops by ms and a key at 0 or less is gone,
// while simulated time, the clients' clocks and the other nodes stay where
// they are. The store moves that node's clock alone (Batch.Jump) and reads
// it back, which must hold what the simulation says.
func (r *Runner) jumpNode(ctx context.Context, n int, ms int64) error {
	want := decay(r.nodeKeys[n-1], ms)
	res, err := r.store.Exec(ctx, &Batch{Prior: want, Read: r.reads, Nodes: r.lesson.Nodes, Node: n, Jump: time.Duration(ms) * time.Millisecond})
	if err != nil {
		return fmt.Errorf("clock jump on node %d: %w", n, err)
	}
	for i := range want {
		if i >= len(res.Keys) || !sameKey(res.Keys[i], want[i]) {
			return fmt.Errorf("node %d disagrees with its jumped clock: want %s, got %v", n, formatKey(want[i]), res.Keys)
		}
	}
	r.nodeKeys[n-1] = res.Keys
	r.keys = r.quorumKeys()
	return nil
}
