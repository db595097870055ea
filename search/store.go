package search

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// A search goes back to a saved state before every transition but the
// first from a node, so its store must hold whatever state the runner is
// given (Batch.Prior), not the one it last left. The real-Redis backend
// re-establishes Prior in every step's transaction already; the two stores
// here do it for the embedded Redis and for the reference model.

// counting wraps a sim.Store and counts the lock-script calls sent.
type counting struct {
	sim.Store
	calls int64
}

func (c *counting) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	c.calls += int64(len(b.Calls))
	return c.Store.Exec(ctx, b)
}

// miniStore runs the scripts on a miniredis of its own (EVALSHA, EVAL on
// NOSCRIPT, as the embedded backend does), handing each call to miniredis's
// dispatcher in process (backend.Direct) rather than through go-redis over
// an in-memory connection: the replies are go-redis's all the same, read by
// backend.DecodeReply. Before a batch whose Prior differs from what the server
// holds it re-establishes Prior through miniredis's Go API, and it reads
// the keys back the same way: neither is a Redis command the search needs
// to measure, and a Lua restore script per transition would double its cost.
type miniStore struct {
	m       *miniredis.Miniredis
	direct  *backend.Direct
	scripts map[*sim.Script]miniScript
	// held is what the server holds, as last read or loaded; nil when not
	// known (after its clock moved).
	held []sim.KeyState
}

// miniScript is a script as a miniStore sends it: its text and SHA1.
type miniScript struct{ src, sha string }

func newMiniStore() *miniStore {
	m, direct := backend.NewMiniredisDirect()
	return &miniStore{m: m, direct: direct, scripts: map[*sim.Script]miniScript{}}
}

func (s *miniStore) close() { s.m.Close() }

// Exec implements sim.Store.
func (s *miniStore) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	if b.Replica != sim.NoReplica {
		return nil, errors.New("search: a search runs on one server, without a replica")
	}
	if !sameKeys(s.held, b.Prior) {
		if b.Derived {
			s.dropOthers(b.Prior)
		}
		if err := s.load(b.Prior); err != nil {
			return nil, err
		}
	}
	res := &sim.BatchResult{Replies: make([]sim.Reply, len(b.Calls)), Keys: make([]sim.KeyState, len(b.Read))}
	for i, c := range b.Calls {
		sc, ok := s.scripts[c.Script]
		if !ok {
			// A user's script runs as on every backend: in Redis's own
			// environment, with its turn bound and its key guard.
			sc.src = backend.ScriptSource(&c, true, false, false)
			sc.sha = redis.NewScript(sc.src).Hash()
			s.scripts[c.Script] = sc
		}
		v, err := s.direct.RunScript(ctx, sc.sha, sc.src, c.Keys, c.Args)
		r, derr := backend.DecodeReply(v, err)
		if derr != nil {
			s.held = nil
			return nil, fmt.Errorf("search: %s: %w", c.Script.Name, derr)
		}
		res.Replies[i] = r
	}
	for i, k := range b.Read {
		ks, err := s.read(k)
		if err != nil {
			s.held = nil
			return nil, err
		}
		res.Keys[i] = ks
	}
	s.held = res.Keys
	if b.Derived {
		found, err := s.found(b.Read)
		if err != nil {
			s.held = nil
			return nil, err
		}
		res.Found = found
		s.held = append(res.Keys[:len(res.Keys):len(res.Keys)], found...)
	}
	return res, nil
}

// dropOthers deletes every key the server holds that keys does not name: a
// key a user's script built that the state to go back to does not have
// (sim.Batch.Derived).
func (s *miniStore) dropOthers(keys []sim.KeyState) {
	in := make(map[string]bool, len(keys))
	for _, k := range keys {
		in[k.Name] = true
	}
	for _, n := range s.m.Keys() {
		if !in[n] {
			s.m.Del(n)
		}
	}
}

// found returns the keys the server holds that read does not name, sorted
// by name (miniredis's Keys is): the keys a user's script built
// (sim.Batch.Derived).
func (s *miniStore) found(read []sim.KeyRef) ([]sim.KeyState, error) {
	in := make(map[string]bool, len(read))
	for _, k := range read {
		in[k.Name] = true
	}
	var out []sim.KeyState
	for _, n := range s.m.Keys() {
		if in[n] {
			continue
		}
		t := sim.KeyType(s.m.Type(n))
		if t != sim.TypeHash && t != sim.TypeString {
			return nil, &backend.DerivedTypeError{Key: n, Type: string(t)}
		}
		ks, err := s.read(sim.KeyRef{Name: n, Type: t})
		if err != nil {
			return nil, err
		}
		out = append(out, ks)
	}
	return out, nil
}

// Advance implements sim.Store: miniredis's clock moves on by d.
func (s *miniStore) Advance(_ context.Context, d time.Duration) error {
	s.m.FastForward(d)
	s.held = nil
	return nil
}

// load makes the server hold keys, contents and PTTL.
func (s *miniStore) load(keys []sim.KeyState) error {
	for _, k := range keys {
		s.m.Del(k.Name)
		switch k.Type {
		case sim.TypeHash:
			for _, f := range k.Fields {
				s.m.HSet(k.Name, f.Name, f.Value)
			}
		case sim.TypeString:
			if err := s.m.Set(k.Name, k.Value); err != nil {
				return fmt.Errorf("search: load %s: %w", k.Name, err)
			}
		default:
			continue
		}
		s.m.SetTTL(k.Name, time.Duration(k.PTTL)*time.Millisecond)
	}
	s.held = keys
	return nil
}

// read returns a key as the server holds it, fields sorted by name.
func (s *miniStore) read(ref sim.KeyRef) (sim.KeyState, error) {
	if !s.m.Exists(ref.Name) {
		return sim.Absent(ref.Name), nil
	}
	ks := sim.KeyState{Name: ref.Name, Type: ref.Type, PTTL: s.m.TTL(ref.Name).Milliseconds()}
	if ks.PTTL <= 0 {
		ks.PTTL = -1 // no TTL: the runner refuses such a key
	}
	switch ref.Type {
	case sim.TypeString:
		v, err := s.m.Get(ref.Name)
		if err != nil {
			return sim.KeyState{}, fmt.Errorf("search: GET %s: %w", ref.Name, err)
		}
		ks.Value = v
	default:
		names, err := s.m.HKeys(ref.Name)
		if err != nil {
			return sim.KeyState{}, fmt.Errorf("search: HKEYS %s: %w", ref.Name, err)
		}
		sort.Strings(names)
		for _, n := range names {
			ks.Fields = append(ks.Fields, sim.Field{Name: n, Value: s.m.HGet(ref.Name, n)})
		}
	}
	// The same bound as a run's store, so a search finds no schedule the
	// player cannot replay.
	if err := backend.CheckKeySize(ks); err != nil {
		return sim.KeyState{}, err
	}
	return ks, nil
}

// modelStore is the reference model (sim/refmodel) as the search's store:
// Prior is put in place before every batch.
type modelStore struct {
	m *refmodel.Store
}

func (s modelStore) Exec(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	for _, k := range b.Prior {
		s.m.Put(k)
	}
	return s.m.Exec(ctx, b)
}

func (s modelStore) Advance(ctx context.Context, d time.Duration) error { return s.m.Advance(ctx, d) }

// sameKeys reports whether a and b hold the same keys, contents and PTTLs.
func sameKeys(a, b []sim.KeyState) bool {
	if a == nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sim.SameKey(a[i], b[i]) {
			return false
		}
	}
	return true
}
