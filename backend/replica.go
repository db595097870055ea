package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// A run of a lesson with `replica: true` has a primary and one replica. Every
// batch of such a run says what it does to the replica (sim.Replication):
//
//   - Replicated: the batch runs on the primary, and before Exec returns the
//     replica has it (and whatever it had missed).
//   - Unreplicated: the batch runs on the primary and its calls never reach
//     the replica.
//   - Failover: the primary dies; the replica is promoted and serves this
//     batch and every later one.
//
// Two kinds of pair do this. The embedded pair is two miniredis on the
// virtual clock: replication copies the keys the batch read, with their
// PTTLs, onto the replica with lua/restore.lua, and failover switches the
// store's client to the replica. The started pair is two redis-server
// processes with real replication (see startedPair).

// Timeouts of a started pair, generous for a loaded test machine; none of
// them is ever reached when things work.
const (
	// pairStartTimeout bounds starting one redis-server (until it answers
	// PING).
	pairStartTimeout = 5 * time.Second
	// pairLinkTimeout bounds waiting for the replica's link to the primary
	// (master_link_status:up), at start and after a cut.
	pairLinkTimeout = 10 * time.Second
	// pairAckTimeout bounds WAIT for the replica's acknowledgement of a
	// replicated batch.
	pairAckTimeout = 5 * time.Second
)

// pair is the primary and replica of a run with a replica.
type pair interface {
	// before readies the servers for b: cuts or restores the replication
	// link, or fails over.
	before(ctx context.Context, s *Store, b *sim.Batch) error
	// after completes b, which read res: replicates it, or waits until the
	// replica has it.
	after(ctx context.Context, s *Store, b *sim.Batch, res *sim.BatchResult) error
	// close shuts the pair down: it kills processes it started.
	close()
}

// replicaPair returns the run's pair, setting it up at the first batch of a
// run with a replica: on the embedded backend a second miniredis beside the
// store's; on a real one a started pair, or an embedded pair when
// redis-server is not on PATH (and Config.RedisServer names none). The
// server at the backend's URL is never used: one server cannot fail over.
func (s *Store) replicaPair(ctx context.Context) (pair, error) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.closed {
		return nil, errors.New("backend: store is closed")
	}
	if s.pair != nil {
		return s.pair, nil
	}
	info := Info{Embedded: true, Pair: PairEmbedded}
	if s.mini != nil {
		s.pair = s.embeddedPair(s.mini, s.client.(*redis.Client))
		s.setInfo(info)
		return s.pair, nil
	}
	if s.be.sandbox {
		p, err := s.sandboxPair(ctx)
		if err != nil {
			return nil, err
		}
		s.client, s.pair = p.pc, p
		s.setInfo(info)
		return p, nil
	}
	info.NotOn = s.be.info.Addr
	bin, err := s.be.redisServer()
	if errors.Is(err, exec.ErrNotFound) && s.be.cfg.RedisServer == "" {
		m, client := NewMiniredis()
		e := s.embeddedPair(m, client)
		e.ownsPrimary = true
		// A fresh miniredis of the run's own: scripts' first calls go as EVAL.
		s.client, s.restore, s.pair, s.cached = client, false, e, map[*sim.Script]bool{}
		s.setInfo(info)
		return s.pair, nil
	}
	if err != nil {
		return nil, fmt.Errorf("backend: a lesson with a replica needs a redis-server to start: %w", err)
	}
	release, err := s.be.acquirePair(ctx)
	if err != nil {
		return nil, err
	}
	p, err := startPair(ctx, bin)
	if err != nil {
		release()
		return nil, err
	}
	p.release = release
	s.client, s.restore, s.pair = p.conn, true, p
	s.setInfo(Info{Addr: p.primary.addr, Version: p.version, Pair: PairStarted, ReplicaAddr: p.replica.addr, NotOn: s.be.info.Addr})
	return p, nil
}

func (s *Store) setInfo(i Info) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.info = i
}

// redisServer returns the path of the redis-server program a started pair
// runs: Config.RedisServer, or redis-server from PATH.
func (b *Backend) redisServer() (string, error) {
	name := b.cfg.RedisServer
	if name == "" {
		name = "redis-server"
	}
	return exec.LookPath(name)
}

// ---- embedded pair ----

// embedded is a pair of miniredis on the virtual clock: the store's server as
// primary and one more as replica.
type embedded struct {
	primary, replica *miniredis.Miniredis
	pc, rc           *redis.Client
	failedOver       bool
	// ownsPrimary is true when the pair made its primary (a real backend
	// without redis-server) and so closes it; the embedded backend's store
	// closes its own.
	ownsPrimary bool
}

// embeddedPair makes m (reached by client) the primary of a new embedded pair
// and moves the store's clock on both servers.
func (s *Store) embeddedPair(m *miniredis.Miniredis, client *redis.Client) *embedded {
	r, rc := NewMiniredis()
	e := &embedded{primary: m, replica: r, pc: client, rc: rc}
	s.advance = func(d time.Duration) {
		e.primary.FastForward(d)
		e.replica.FastForward(d)
	}
	return e
}

func (e *embedded) before(_ context.Context, s *Store, b *sim.Batch) error {
	if b.Replica == sim.Failover && !e.failedOver {
		// The primary is dead to the run from here on; Close shuts it down.
		s.client, e.failedOver = e.rc, true
		// The promoted replica has run no script yet (nil on a started
		// pair, where clearing does nothing).
		clear(s.cached)
	}
	return nil
}

// after copies what a Replicated batch read on the primary (the state of
// every key of the run, with its PTTL) onto the replica.
func (e *embedded) after(ctx context.Context, s *Store, b *sim.Batch, res *sim.BatchResult) error {
	if b.Replica != sim.Replicated || e.failedOver || len(res.Keys) == 0 {
		return nil
	}
	keys, args := restoreArgs(s, res.Keys)
	if err := restoreScript.Run(ctx, e.rc, keys, args...).Err(); err != nil {
		return fmt.Errorf("backend: replicate to the embedded replica: %w", err)
	}
	return nil
}

func (e *embedded) close() {
	e.rc.Close()
	e.replica.Close()
	if e.ownsPrimary {
		e.pc.Close()
		e.primary.Close()
	}
}

// ---- started pair ----

// startedPair is two redis-server processes Lockstep started for one run,
// with no persistence, on free loopback ports: a primary, and a replica
// started with --replicaof it. The replication is Redis's own:
//
//   - After each batch that ran on the primary while the replica is linked,
//     `WAIT 1` makes sure the replica has it before the next step.
//   - Before an Unreplicated batch with calls, `REPLICAOF NO ONE` on the
//     replica cuts the link, so the calls really never reach it; the next
//     Replicated batch links it again (`REPLICAOF` the primary) and waits for
//     master_link_status:up, and the resync brings it level first.
//   - At Failover the primary is killed and the replica promoted. Before the
//     promoted replica serves anything, its contents are checked against
//     what the lesson says it holds (verify), which proves that replication
//     delivered exactly that; then the usual restore re-establishes the
//     simulated PTTLs on it.
type startedPair struct {
	dir              string // the servers' working directory, removed at close
	primary, replica *process
	pc, rc           *redis.Client
	// conn is the one connection to the primary that every batch and its
	// WAIT go through: WAIT waits for the writes of its own connection.
	conn       *redis.Conn
	version    string // the primary's redis_version
	linked     bool   // the replica follows the primary
	failedOver bool
	// delivered is the state of the run's keys after the last batch the
	// replica acknowledged, as the primary read them, and deliveredMS that
	// batch's server time (Unix ms); nil and 0 before any.
	delivered   []sim.KeyState
	deliveredMS int64
	// release frees the pair's place among the backend's MaxPairs.
	release func()
}

// startPair starts a primary and a replica of bin and waits until the
// replica's link is up.
func startPair(ctx context.Context, bin string) (_ *startedPair, err error) {
	dir, err := makePairDir()
	if err != nil {
		return nil, fmt.Errorf("backend: start a primary+replica pair: %w", err)
	}
	p := &startedPair{dir: dir}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.primary, err = startProcess(ctx, bin, dir); err != nil {
		return nil, fmt.Errorf("backend: start the primary redis-server: %w", err)
	}
	p.pc = pairClient(p.primary.addr)
	p.conn = p.pc.Conn()
	if p.replica, err = startProcess(ctx, bin, dir, "--replicaof", "127.0.0.1", p.primary.port); err != nil {
		return nil, fmt.Errorf("backend: start the replica redis-server: %w", err)
	}
	p.rc = pairClient(p.replica.addr)
	if err := p.waitLink(ctx); err != nil {
		return nil, err
	}
	p.linked = true
	info, err := p.pc.Info(ctx, "server").Result()
	if err != nil {
		return nil, fmt.Errorf("backend: INFO server at %s: %w", p.primary.addr, err)
	}
	p.version = infoField(info, "redis_version")
	return p, nil
}

func pairClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true, MaxRetries: 0, PoolSize: 2, ReadTimeout: pairAckTimeout + time.Second, MaintNotificationsConfig: noMaintNotifications()})
}

// waitLink waits until the replica reports its link to the primary up and no
// sync in progress.
func (p *startedPair) waitLink(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, pairLinkTimeout)
	defer cancel()
	for {
		info, err := p.rc.Info(ctx, "replication").Result()
		if err == nil && infoField(info, "master_link_status") == "up" && infoField(info, "master_sync_in_progress") == "0" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("backend: the replica at %s did not link to the primary at %s within %s: %w", p.replica.addr, p.primary.addr, pairLinkTimeout, ctx.Err())
		case <-p.replica.done:
			return fmt.Errorf("backend: the replica redis-server at %s exited: %s", p.replica.addr, p.replica.output())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (p *startedPair) before(ctx context.Context, s *Store, b *sim.Batch) error {
	switch {
	case p.failedOver:
		return nil
	case b.Replica == sim.Failover:
		return p.failover(ctx, s, b)
	case b.Replica == sim.Unreplicated && len(b.Calls) > 0 && p.linked:
		// Cut the link first, so that the calls really never reach the
		// replica. (A batch with no calls writes nothing the linked
		// replica lacks: its restore re-establishes the state both hold.)
		if err := p.rc.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
			return fmt.Errorf("backend: cut the replica at %s off: %w", p.replica.addr, err)
		}
		p.linked = false
	case b.Replica == sim.Replicated && !p.linked:
		if err := p.rc.Do(ctx, "REPLICAOF", "127.0.0.1", p.primary.port).Err(); err != nil {
			return fmt.Errorf("backend: link the replica at %s to the primary again: %w", p.replica.addr, err)
		}
		if err := p.waitLink(ctx); err != nil {
			return err
		}
		p.linked = true
	}
	return nil
}

// after waits until the linked replica has acknowledged the batch, and
// records what it now holds.
func (p *startedPair) after(ctx context.Context, s *Store, b *sim.Batch, res *sim.BatchResult) error {
	if p.failedOver || !p.linked {
		return nil
	}
	n, err := p.conn.Do(ctx, "WAIT", 1, pairAckTimeout.Milliseconds()).Int64()
	if err != nil {
		return fmt.Errorf("backend: WAIT on the primary at %s: %w", p.primary.addr, err)
	}
	if n < 1 {
		return fmt.Errorf("backend: the replica at %s did not acknowledge the step within %s", p.replica.addr, pairAckTimeout)
	}
	p.delivered = append([]sim.KeyState(nil), res.Keys...)
	p.deliveredMS = s.lastMS
	return nil
}

// failover kills the primary, promotes the replica, checks what it holds and
// makes the store use it.
func (p *startedPair) failover(ctx context.Context, s *Store, b *sim.Batch) error {
	p.conn.Close()
	p.pc.Close()
	p.primary.kill()
	s.client, p.linked = p.rc, false // the only server left, also for Close
	if err := p.rc.Do(ctx, "REPLICAOF", "NO", "ONE").Err(); err != nil {
		return fmt.Errorf("backend: promote the replica at %s: %w", p.replica.addr, err)
	}
	if err := p.verify(ctx, s, b); err != nil {
		return err
	}
	p.failedOver = true
	return nil
}

// verify compares what the promoted replica holds, before anything is
// written to it, with what it must hold. Per key of b.Read, ignoring TTLs:
//
//   - a key the replica holds must be exactly as the last batch it
//     acknowledged left it (so no unreplicated write reached it);
//   - a key that batch left, the replica may lack only once its TTL has run
//     out on the servers' clock since;
//   - a key the lesson says the replica holds (b.Prior, the simulated
//     replica) must be as that batch left it; the lesson may miss one the
//     replica still holds, when simulated time ran its TTL out first.
func (p *startedPair) verify(ctx context.Context, s *Store, b *sim.Batch) error {
	actual, nowMS, err := readTyped(ctx, p.rc, s, b.Read)
	if err != nil {
		return fmt.Errorf("backend: read the promoted replica at %s: %w", p.replica.addr, err)
	}
	byName := func(keys []sim.KeyState, name string) sim.KeyState {
		for _, k := range keys {
			if k.Name == name {
				return k
			}
		}
		return sim.Absent(name)
	}
	for i, ref := range b.Read {
		a := actual[i]
		d := byName(p.delivered, ref.Name)
		want := byName(b.Prior, ref.Name)
		switch {
		case a.Exists() && !a.SameContents(d):
			return fmt.Errorf("backend: failover: the replica holds %s, but the last step it received left %s: replication delivered something the lesson says it never did", describeKey(a), describeKey(d))
		case !a.Exists() && d.Exists() && nowMS-p.deliveredMS < d.PTTL:
			return fmt.Errorf("backend: failover: the replica lacks %s, which it received %d ms ago with a TTL of %d ms", describeKey(d), nowMS-p.deliveredMS, d.PTTL)
		case want.Exists() && !want.SameContents(d):
			return fmt.Errorf("backend: failover: the lesson says the replica holds %s, but the last step it received left %s", describeKey(want), describeKey(d))
		}
	}
	return nil
}

func (p *startedPair) close() {
	if p.conn != nil {
		p.conn.Close()
	}
	for _, c := range []*redis.Client{p.pc, p.rc} {
		if c != nil {
			c.Close()
		}
	}
	for _, proc := range []*process{p.primary, p.replica} {
		if proc != nil {
			proc.kill()
		}
	}
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// readTyped reads refs from c in one MULTI/EXEC, as a key's real type says
// (TYPE), and the server's time (Unix ms). A key of another type than its ref
// says is an error.
func readTyped(ctx context.Context, c *redis.Client, s *Store, refs []sim.KeyRef) ([]sim.KeyState, int64, error) {
	var now *redis.TimeCmd
	types := make([]*redis.StatusCmd, len(refs))
	pttls := make([]*redis.Cmd, len(refs))
	reads := make([]*redis.Cmd, len(refs))
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		now = p.Time(ctx)
		for i, k := range refs {
			types[i] = p.Type(ctx, s.key(k.Name))
			pttls[i] = p.Do(ctx, "PTTL", s.key(k.Name))
			if k.Type == sim.TypeString {
				reads[i] = p.Do(ctx, "GET", s.key(k.Name))
			} else {
				reads[i] = p.Do(ctx, "HGETALL", s.key(k.Name))
			}
		}
		return nil
	})
	if err != nil && !isReply(err) {
		return nil, 0, err
	}
	out := make([]sim.KeyState, len(refs))
	for i, k := range refs {
		typ, err := types[i].Result()
		if err != nil {
			return nil, 0, fmt.Errorf("TYPE %s: %w", k.Name, err)
		}
		if typ != string(sim.TypeNone) && typ != string(k.Type) {
			return nil, 0, fmt.Errorf("%s is a %s, want a %s", k.Name, typ, k.Type)
		}
		if typ == string(sim.TypeNone) {
			out[i] = sim.Absent(k.Name)
			continue
		}
		if out[i], err = readKey(k, pttls[i], reads[i], 0); err != nil {
			return nil, 0, err
		}
	}
	if now.Err() != nil {
		return nil, 0, fmt.Errorf("TIME: %w", now.Err())
	}
	return out, now.Val().UnixMilli(), nil
}

// describeKey renders a key's type and contents for messages.
func describeKey(k sim.KeyState) string {
	switch k.Type {
	case sim.TypeNone:
		return k.Name + " (absent)"
	case sim.TypeString:
		return fmt.Sprintf("%s = %q", k.Name, k.Value)
	}
	fs := make([]string, len(k.Fields))
	for i, f := range k.Fields {
		fs[i] = f.Name + "=" + f.Value
	}
	return fmt.Sprintf("%s = hash {%s}", k.Name, strings.Join(fs, " "))
}
