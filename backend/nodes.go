package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// A run of a lesson with nodes (`nodes: N`, sim.Batch.Nodes) has N
// independent Redis primaries with no replication between them, Redlock's
// servers. Every batch of such a run goes to one node (sim.Batch.Node), and
// a Restart batch first replaces that node's server by a fresh, empty one,
// as a Redis without persistence comes back from a crash. Like a run with a
// replica, such a run never uses the server at the backend's URL (one
// server is not N): on the embedded backend its nodes are N miniredis on
// the virtual clock; on a real one, N redis-server processes it starts
// (with no persistence: `--save ""`, `--appendonly no`), or N miniredis when
// redis-server is not on PATH (and Config.RedisServer names none). The
// started nodes take one of the backend's MaxPairs places. In the Lua
// sandbox (a learner's lock) they are N miniredis that the sandbox's
// process starts for the run.

// nodeServer is one node of a run with nodes.
type nodeServer struct {
	mini   *miniredis.Miniredis // embedded; nil when started
	proc   *process             // started; nil when embedded
	client *redis.Client
	// release shuts a server of the Lua sandbox's process down (and
	// closes client); nil on other nodes.
	release func()
	// cached is the scripts the node's miniredis has run (see
	// Store.cached); nil on a started node.
	cached map[*sim.Script]bool
}

// nodeSet is the servers of a run with nodes.
type nodeSet struct {
	nodes []*nodeServer
	bin   string // the redis-server program of started nodes; "" when embedded
	// spawn starts a node in the Lua sandbox's process (Backend.spawn);
	// nil when the nodes are not the sandbox's.
	spawn func(ctx context.Context) (*redis.Client, func(), error)
	dir   string // the started nodes' working folder, removed at close
	// release frees the run's place among the backend's MaxPairs.
	release func()
}

// nodeSetFor returns the run's nodes, setting them up at its first batch.
func (s *Store) nodeSetFor(ctx context.Context, n int) (*nodeSet, error) {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.closed {
		return nil, errors.New("backend: store is closed")
	}
	if s.nodes != nil {
		if len(s.nodes.nodes) != n {
			return nil, fmt.Errorf("backend: a batch for %d nodes in a run of %d", n, len(s.nodes.nodes))
		}
		return s.nodes, nil
	}
	if n < 1 {
		return nil, fmt.Errorf("backend: a run with nodes needs at least one, got %d", n)
	}
	ns := &nodeSet{}
	info := Info{Embedded: true, Nodes: n}
	embedded := s.mini != nil
	if s.be.sandbox {
		// A learner's lock in the Lua sandbox: N miniredis of the run's own
		// in the sandbox's process, reached over loopback as started nodes
		// are (every step restored, on the wall clock), so the frames are
		// those of the in-process embedded nodes.
		ns.spawn = s.be.spawn
		for i := range n {
			nd, err := ns.sandboxNode(ctx)
			if err != nil {
				ns.close()
				return nil, fmt.Errorf("backend: start node %d: %w", i+1, err)
			}
			ns.nodes = append(ns.nodes, nd)
		}
		s.restore, s.advance = true, nil
		s.nodes = ns
		s.setInfo(info)
		return ns, nil
	}
	if !embedded {
		info.NotOn = s.be.info.Addr
		bin, err := s.be.redisServer()
		switch {
		case errors.Is(err, exec.ErrNotFound) && s.be.cfg.RedisServer == "":
			embedded = true
		case err != nil:
			return nil, fmt.Errorf("backend: a lesson with nodes needs a redis-server to start: %w", err)
		default:
			ns.bin = bin
		}
	}
	if embedded {
		for range n {
			ns.nodes = append(ns.nodes, newEmbeddedNode())
		}
		// The nodes' own miniredis: scripts' first calls go as EVAL, and the
		// virtual clock moves on every node.
		s.restore = false
		s.advance = func(d time.Duration) {
			for _, nd := range ns.nodes {
				nd.mini.FastForward(d)
			}
		}
		s.nodes = ns
		s.setInfo(info)
		return ns, nil
	}
	release, err := s.be.acquirePair(ctx)
	if err != nil {
		return nil, err
	}
	ns.release = release
	if ns.dir, err = makePairDir(); err != nil {
		ns.close()
		return nil, fmt.Errorf("backend: start %d nodes: %w", n, err)
	}
	for i := range n {
		nd, err := ns.startNode(ctx)
		if err != nil {
			ns.close()
			return nil, fmt.Errorf("backend: start node %d: %w", i+1, err)
		}
		ns.nodes = append(ns.nodes, nd)
	}
	info = Info{Addr: ns.nodes[0].proc.addr, Nodes: n, NotOn: s.be.info.Addr}
	if v, err := ns.nodes[0].client.Info(ctx, "server").Result(); err == nil {
		info.Version = infoField(v, "redis_version")
	}
	s.restore, s.advance = true, nil
	s.nodes = ns
	s.setInfo(info)
	return ns, nil
}

func newEmbeddedNode() *nodeServer {
	m, c := NewMiniredis()
	return &nodeServer{mini: m, client: c, cached: map[*sim.Script]bool{}}
}

// sandboxNode starts one node of the set in the Lua sandbox's process.
func (ns *nodeSet) sandboxNode(ctx context.Context) (*nodeServer, error) {
	c, release, err := ns.spawn(ctx)
	if err != nil {
		return nil, err
	}
	return &nodeServer{client: c, release: release}, nil
}

// startNode starts one redis-server of the set.
func (ns *nodeSet) startNode(ctx context.Context) (*nodeServer, error) {
	p, err := startProcess(ctx, ns.bin, ns.dir)
	if err != nil {
		return nil, err
	}
	return &nodeServer{proc: p, client: pairClient(p.addr)}, nil
}

// restart replaces node n (1-based) by a fresh, empty server: a started
// node's process is killed and a new one started (on another port), an
// embedded node's miniredis closed and a new one made.
func (ns *nodeSet) restart(ctx context.Context, n int) error {
	old := ns.nodes[n-1]
	old.close()
	var nd *nodeServer
	switch {
	case ns.spawn != nil:
		var err error
		if nd, err = ns.sandboxNode(ctx); err != nil {
			return fmt.Errorf("backend: restart node %d: %w", n, err)
		}
	case ns.bin == "":
		nd = newEmbeddedNode()
	default:
		var err error
		if nd, err = ns.startNode(ctx); err != nil {
			return fmt.Errorf("backend: restart node %d: %w", n, err)
		}
	}
	ns.nodes[n-1] = nd
	return nil
}

func (nd *nodeServer) close() {
	nd.client.Close()
	if nd.release != nil {
		nd.release()
	}
	if nd.mini != nil {
		nd.mini.Close()
	}
	if nd.proc != nil {
		nd.proc.kill()
	}
}

func (ns *nodeSet) close() {
	for _, nd := range ns.nodes {
		nd.close()
	}
	ns.nodes = nil
	if ns.dir != "" {
		os.RemoveAll(ns.dir)
	}
	if ns.release != nil {
		ns.release()
		ns.release = nil
	}
}

// execNode runs b, a batch of a run with nodes, on its node: after a
// restart when b says so.
func (s *Store) execNode(ctx context.Context, b *sim.Batch) (*sim.BatchResult, error) {
	ns, err := s.nodeSetFor(ctx, b.Nodes)
	if err != nil {
		return nil, err
	}
	if b.Node < 1 || b.Node > len(ns.nodes) {
		return nil, fmt.Errorf("backend: node %d of a run of %d", b.Node, len(ns.nodes))
	}
	if b.Restart {
		if len(b.Calls) > 0 {
			return nil, errors.New("backend: a restart batch makes no call")
		}
		// Under pmu, as the set up: a concurrent Close waits for the new
		// server, then kills it with the others.
		s.pmu.Lock()
		if s.closed {
			s.pmu.Unlock()
			return nil, errors.New("backend: store is closed")
		}
		err := ns.restart(ctx, b.Node)
		s.pmu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	s.pmu.Lock()
	nd := ns.nodes[b.Node-1]
	s.pmu.Unlock()
	if b.Jump > 0 && nd.mini != nil {
		// The node's clock alone jumps (a clock-jump step with node); a
		// started node gets the jumped state from the restore (b.Prior).
		nd.mini.FastForward(b.Jump)
	}
	// The store's connection is the node's for this batch (and stays so
	// until the next: Close deletes the run's keys on it, then kills
	// every node).
	s.client, s.cached = nd.client, nd.cached
	return s.run(ctx, b)
}

// NodeAddrs returns the host:port of each started node of a run with nodes,
// node 1 first, as they are now (a restart starts a node on another port);
// nil before the run's first batch and on embedded nodes. For tests and
// diagnostics.
func (s *Store) NodeAddrs() []string {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	if s.nodes == nil || s.nodes.bin == "" {
		return nil
	}
	out := make([]string, len(s.nodes.nodes))
	for i, nd := range s.nodes.nodes {
		out[i] = nd.proc.addr
	}
	return out
}
