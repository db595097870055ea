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
// may write keys its scripts build themselves, KEYS[1] .. ":count". They
// are found with SCAN MATCH over the run's own namespace (its hash-tagged
// prefix on a real Redis; the whole of an embedded run's server of its
// own), never KEYS, after the step's transaction, as plain commands. A
// name the step did not read makes the store send the step again from
// Prior (whose restore deletes it first, so the repeat is exact), this
// time reading it in the transaction: its contents and PTTL are those of
// the step's own millisecond, as every key's are. A step that builds no
// new key costs one SCAN more.

// scanCount is the COUNT hint of each SCAN: a run has a few keys, and a
// shared Redis many; Redis reads about this many slots per call.
const scanCount = 1000

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

// findNew scans the run's namespace after an attempt of b and adds every
// key neither Read nor an earlier scan names. It returns retryDerived
// when it added any (the step is sent again to read them), noRetry
// otherwise.
func (d *derivedRead) findNew(ctx context.Context, s *Store, b *sim.Batch) (retry, error) {
	d.resend = true
	names, err := s.scanNamespace(ctx)
	if err != nil {
		return noRetry, err
	}
	known := make(map[string]bool, len(b.Read)+len(d.refs))
	for _, k := range b.Read {
		known[k.Name] = true
	}
	for _, k := range d.refs {
		known[k.Name] = true
	}
	var fresh []string
	for _, n := range names {
		if !known[n] {
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return noRetry, nil
	}
	types, err := s.typesOf(ctx, fresh)
	if err != nil {
		return noRetry, err
	}
	for i, n := range fresh {
		switch t := types[i]; t {
		case sim.TypeHash, sim.TypeString:
			d.refs = append(d.refs, sim.KeyRef{Name: n, Type: t})
		case sim.TypeNone:
			// Gone since the scan (its lease ran out): read it anyway,
			// as a String; it is absent or the step makes it again.
			d.refs = append(d.refs, sim.KeyRef{Name: n, Type: sim.TypeString})
		default:
			return noRetry, &DerivedTypeError{Key: n, Type: string(t)}
		}
	}
	s.note(fresh...)
	sort.Slice(d.refs, func(i, j int) bool { return d.refs[i].Name < d.refs[j].Name })
	return retryDerived, nil
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

// scanner is a connection SCAN can go through.
type scanner interface {
	Scan(ctx context.Context, cursor uint64, match string, count int64) *redis.ScanCmd
}

// scanConn is the connection that reaches the run's keys: on a Cluster,
// the primary of the run's hash slot (every key of a run shares its
// hash tag).
func (s *Store) scanConn(ctx context.Context) (scanner, error) {
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		c, err := cc.MasterForKey(ctx, s.key(""))
		if err != nil {
			return nil, fmt.Errorf("backend: the run's node: %w", err)
		}
		return c, nil
	}
	if sc, ok := s.client.(scanner); ok {
		return sc, nil
	}
	return nil, fmt.Errorf("backend: %T cannot SCAN", s.client)
}

// globEscape escapes the characters SCAN MATCH reads as a pattern.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// scanNamespace returns the logical names of every key under the store's
// prefix, sorted (SCAN may return a key twice; each comes once).
func (s *Store) scanNamespace(ctx context.Context) ([]string, error) {
	c, err := s.scanConn(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, globEscape(s.prefix)+"*", scanCount).Result()
		if err != nil {
			return nil, fmt.Errorf("backend: %w", s.be.permission("SCAN", err))
		}
		for _, k := range keys {
			if n, ok := strings.CutPrefix(k, s.prefix); ok {
				seen[n] = true
			}
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
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

// sweepNamespace deletes every key left under the store's prefix (Close of
// a run that ran Derived batches: a key a failed step's script built may
// be one the store was never told of).
func (s *Store) sweepNamespace(ctx context.Context) error {
	names, err := s.scanNamespace(ctx)
	if err != nil || len(names) == 0 {
		return err
	}
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = s.key(n)
	}
	if err := s.client.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("backend: delete run keys under %s: %w", s.prefix, s.be.permission("DEL", err))
	}
	return nil
}
