package web

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"lockstep/backend"
	"lockstep/search"
	"lockstep/sim"
)

// Backend is what the server needs of the Redis its lessons run on: a fresh
// store for each run, and a description of it for the pages and the hello
// message. RedisBackend adapts package backend's embedded and real Redis;
// any other sim.Store will do as well (the tests serve the course on
// sim/refmodel's reference model).
type Backend interface {
	// OpenStore opens a store for one run and returns it with the function
	// that ends the run (deletes its keys, closes the store). A store with a
	// method Prefix() string names its keys' prefix, which the Redis panel
	// shows.
	OpenStore() (sim.Store, func(context.Context) error, error)
	// Info describes the backend.
	Info() backend.Info
}

// RedisBackend is be as a Backend: each run gets be.NewStore().
func RedisBackend(be *backend.Backend) Backend { return redisBackend{be} }

type redisBackend struct{ be *backend.Backend }

func (b redisBackend) OpenStore() (sim.Store, func(context.Context) error, error) {
	st, err := b.be.NewStore()
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

func (b redisBackend) Info() backend.Info { return b.be.Info() }

// searchBackendOf is where the Search page's searches run: on b's Redis
// when it is a real one, else on an embedded Redis per worker (an embedded
// backend, or a store that is not Redis at all).
func searchBackendOf(b Backend) *search.Backend {
	if rb, ok := b.(redisBackend); ok && !rb.be.Info().Embedded {
		return search.Redis(rb.be)
	}
	return search.Embedded()
}

// keyPrefix is the prefix of st's keys, "" when it has none.
func keyPrefix(st sim.Store) string {
	if p, ok := st.(interface{ Prefix() string }); ok {
		return p.Prefix()
	}
	return ""
}

// runTimeout bounds one run of a whole lesson (a page's frames, an export,
// one side of a comparison).
const runTimeout = 4 * stepTimeout

// runFrames runs l to its end on a fresh store of the server's backend,
// within runTimeout.
func (s *Server) runFrames(ctx context.Context, l *sim.Lesson) ([]sim.Frame, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	frames, err := sim.RunFrames(ctx, l, s.openerFor(l))
	if err != nil {
		return nil, fmt.Errorf("web: %w", backend.ExplainOwnerInKeys(err, l.VariantDef))
	}
	return frames, nil
}

// openStore opens a run's store on the server's backend; ending it deletes
// its keys within closeTimeout, even after the server's context is done.
func (s *Server) openStore() (sim.Store, func(context.Context) error, error) {
	st, end, err := s.cfg.Backend.OpenStore()
	if err != nil {
		return nil, nil, err
	}
	return st, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		return end(ctx)
	}, nil
}

// customScripts reports whether l runs scripts of a user's variant file
// (the learner's own lock), which the server sends to its Redis only when
// the operator allowed it (Config.AllowCustomScripts, serve
// -allow-custom-scripts).
func customScripts(l *sim.Lesson) bool { return l.VariantDef != nil && !l.VariantDef.Builtin }

// openerFor is where a run of l opens its store: the server's backend,
// except for a lesson with custom scripts on a Redis backend, which runs in
// the Lua sandbox (backend.Sandbox: a process of its own, bounded in time
// and memory) unless the operator opened a real Redis to them
// (Config.AllowCustomScripts). A backend that is not Redis (tests' reference
// model) runs no Lua.
func (s *Server) openerFor(l *sim.Lesson) sim.StoreOpener {
	if !customScripts(l) {
		return s.openStore
	}
	if rb, ok := s.cfg.Backend.(redisBackend); !ok || s.cfg.AllowCustomScripts && !rb.be.Info().Embedded {
		return s.openStore
	}
	return s.openSandbox
}

// openSandbox opens a run's store in the server's Lua sandbox.
func (s *Server) openSandbox() (sim.Store, func(context.Context) error, error) {
	st, err := s.sandbox.NewStore(s.ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("web: lua sandbox for custom scripts: %w", err)
	}
	return st, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		return st.Close(ctx)
	}, nil
}

// hostPort is an IPv4 or [IPv6] address with its port, as a dial error
// names the Redis it could not reach.
var hostPort = regexp.MustCompile(`(\b\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d+\b`)

// visibleReason is the text of err, a step's failure on Redis, as a peer
// may read it: all of it for a local peer; for anyone else without the
// server's Redis's address (info's, and any address with a port the error
// names), as visibleInfo tells them none (issue 37, item 8).
func visibleReason(err error, info backend.Info, local bool) string {
	s := err.Error()
	if local || info.Embedded {
		return s
	}
	for _, a := range []string{info.Addr, info.ReplicaAddr, info.NotOn} {
		if a != "" {
			s = strings.ReplaceAll(s, a, "-redis")
		}
	}
	return hostPort.ReplaceAllString(s, "-redis")
}

// visibleInfo is what a hello or a step's error tells a peer of the
// server's Redis, and its text: everything to a local peer, to anyone
// else no address or version (issue 37, item 8: every visitor was shown
// the internal Redis's address and version).
func visibleInfo(info backend.Info, local bool) (backend.Info, string) {
	if local || info.Embedded {
		return info, info.String()
	}
	info.Addr, info.Version, info.ReplicaAddr, info.NotOn = "", "", "", ""
	return info, "a real Redis (the server's -redis)"
}
