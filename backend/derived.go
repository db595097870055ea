package backend

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// A Derived batch (sim.Batch.Derived: a run under a user's variant file)
// may write keys its scripts build themselves, KEYS[1] .. ":count". Its
// scripts go with a key guard that records (ScriptSource's record): every
// key a writing command names outside the call's KEYS is added to the
// call's written set (WrittenKey), which the step's transaction reads
// (SMEMBERS) and deletes right after the calls. A name the step did not
// read makes the store send the step again from Prior (whose restore
// deletes it first, so the repeat is exact), this time reading it in the
// transaction: its contents and PTTL are those of the step's own
// millisecond, as every key's are. The cost is that of the keys written,
// on every backend alike: a SCAN MATCH of the run's namespace, which this
// replaced, walks the whole keyspace of a shared Redis (a fresh-eyes
// review of issue 33: 10 s a run beside 300,000 keys of others).

// derivedRead is what a Derived batch found so far, across its attempts.
type derivedRead struct {
	// refs are the keys found that the batch's Read does not name, sorted
	// by name, with the type each had when found.
	refs []sim.KeyRef
	// resend is true once an attempt ran: the next starts from Prior.
	resend bool
}

// prior is the batch's Prior with every other key the run may have
// written as absent: those found so far and those the store was ever
// asked about (a key the runner stopped reading, or one an attempt of a
// failed step built).
func (d *derivedRead) prior(s *Store, b *sim.Batch) []sim.KeyState {
	in := make(map[string]bool, len(b.Prior))
	for _, k := range b.Prior {
		in[k.Name] = true
	}
	out := slices.Clip(b.Prior)
	var gone []string
	for _, r := range d.refs {
		if !in[r.Name] {
			gone = append(gone, r.Name)
			in[r.Name] = true
		}
	}
	s.mu.Lock()
	for n := range s.names {
		if !in[n] {
			gone = append(gone, n)
			in[n] = true
		}
	}
	s.mu.Unlock()
	sort.Strings(gone)
	for _, n := range gone {
		out = append(out, sim.Absent(n))
	}
	return out
}

// findNew adds every key of written (names an attempt of b wrote, as
// its written sets had them) that neither Read nor an earlier attempt
// names. It returns retryDerived when it added any (the step is sent
// again to read them), noRetry otherwise.
func (d *derivedRead) findNew(ctx context.Context, s *Store, b *sim.Batch, written []string) (retry, error) {
	d.resend = true
	known := make(map[string]bool, len(b.Read)+len(d.refs))
	for _, k := range b.Read {
		known[k.Name] = true
	}
	for _, k := range d.refs {
		known[k.Name] = true
	}
	var fresh []string
	for _, n := range written {
		if !known[n] {
			known[n] = true
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return noRetry, nil
	}
	sort.Strings(fresh)
	types, err := s.typesOf(ctx, fresh)
	if err != nil {
		return noRetry, err
	}
	for i, n := range fresh {
		switch t := types[i]; t {
		case sim.TypeHash, sim.TypeString:
			d.refs = append(d.refs, sim.KeyRef{Name: n, Type: t})
		case sim.TypeNone:
			// Gone since (deleted by the step, or its lease ran out):
			// read it anyway, as a String; it is absent or the step
			// makes it again.
			d.refs = append(d.refs, sim.KeyRef{Name: n, Type: sim.TypeString})
		default:
			return noRetry, &DerivedTypeError{Key: n, Type: string(t)}
		}
	}
	sort.Slice(d.refs, func(i, j int) bool { return d.refs[i].Name < d.refs[j].Name })
	return retryDerived, nil
}

// writtenSets returns the written sets (WrittenKey) of b's calls, each
// once, in the order of the calls.
func (s *Store) writtenSets(b *sim.Batch) []string {
	var out []string
	for i := range b.Calls {
		if !b.Calls[i].Script.Custom {
			continue
		}
		if k, ok := WrittenKey(&b.Calls[i], s.prefix); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// writtenNames returns the logical names the written sets' SMEMBERS
// replies hold, and notes them as the run's keys (so that Close deletes
// them even when the step then fails).
func (s *Store) writtenNames(members []*redis.StringSliceCmd) ([]string, error) {
	var out []string
	for _, m := range members {
		keys, err := m.Result()
		if err != nil {
			return nil, fmt.Errorf("backend: SMEMBERS of the keys a script wrote: %w", err)
		}
		for _, k := range keys {
			if n, ok := strings.CutPrefix(k, s.prefix); ok {
				out = append(out, n)
			}
		}
	}
	s.note(out...)
	return out, nil
}

// found splits res, read with d.refs after b.Read, into its Keys (Read's)
// and the found keys that exist.
func (d *derivedRead) found(res *sim.BatchResult) []sim.KeyState {
	n := len(res.Keys) - len(d.refs)
	var out []sim.KeyState
	for _, k := range res.Keys[n:] {
		if k.Exists() {
			out = append(out, k)
		}
	}
	res.Keys = res.Keys[:n]
	return out
}

// DerivedTypeError is a key a user's script built of a type Lockstep does
// not show (a list, a set): only Hash and String keys are.
type DerivedTypeError struct {
	Key, Type string
}

func (e *DerivedTypeError) Error() string {
	return fmt.Sprintf("backend: a script built key %s, a %s: Lockstep shows and restores only Hash and String keys", e.Key, e.Type)
}

// Message makes DerivedTypeError a Coded error: backend.derived-type.
func (e *DerivedTypeError) Message() sim.Msg {
	return sim.M("backend.derived-type", "Key", e.Key, "Type", e.Type)
}

// typesOf returns the TYPE of each logical name.
func (s *Store) typesOf(ctx context.Context, names []string) ([]sim.KeyType, error) {
	cmds := make([]*redis.StatusCmd, len(names))
	_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range names {
			cmds[i] = p.Type(ctx, s.key(n))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("backend: TYPE: %w", s.be.permission("TYPE", err))
	}
	out := make([]sim.KeyType, len(names))
	for i, c := range cmds {
		out[i] = sim.KeyType(c.Val())
	}
	return out, nil
}
