package search

import (
	"context"

	"lockstep/backend"
	"lockstep/sim"
	"lockstep/sim/refmodel"
)

// Backend is where a search runs its transitions, one store per worker, and
// where it replays its counterexamples as lessons.
type Backend struct {
	// Name describes it for people: "embedded Redis (miniredis)", "Redis
	// 7.0.15 at 127.0.0.1:6379", "reference model (sim/refmodel)".
	Name string
	// Msg is Name as a message code of the catalogue (backend.embedded,
	// "backend-redis", "backend-model"), to word it
	// in a reader's language; a catalogue renders it as a message argument.
	Msg sim.Msg
	// worker opens a worker's store and returns it with its close.
	worker func(ctx context.Context) (sim.Store, func(), error)
	// replay opens the store a counterexample replays on, as `lockstep
	// run` would.
	replay func(ctx context.Context) (sim.Store, func(), error)
}

// Embedded runs every transition on a miniredis per worker and replays the
// counterexamples on the embedded backend (package backend).
func Embedded() *Backend {
	info := backend.Info{Embedded: true}
	return &Backend{
		Name: info.String(),
		Msg:  infoMsg(info),
		worker: func(context.Context) (sim.Store, func(), error) {
			s := newMiniStore()
			return s, s.close, nil
		},
		replay: func(ctx context.Context) (sim.Store, func(), error) {
			be, err := backend.Open(ctx, backend.Config{})
			if err != nil {
				return nil, nil, err
			}
			return storeOf(ctx, be)
		},
	}
}

// Redis runs the transitions and the replays on the real Redis be is
// connected to, each worker under a key prefix of its own (backend.Store,
// which re-establishes every key of a run at each step, so going back to
// a saved state costs nothing more). The caller closes be.
func Redis(be *backend.Backend) *Backend {
	open := func(ctx context.Context) (sim.Store, func(), error) { return storeOf(ctx, be) }
	return &Backend{Name: be.Info().String(), Msg: infoMsg(be.Info()), worker: open, replay: open}
}

// Sandbox runs the transitions and the replays in sb, the Lua sandbox's
// process (a user's scripts, which the server never runs in its own
// process), each worker under a key prefix of its own as on Redis. A
// worker opened after the sandbox's process was killed gets a fresh one.
func Sandbox(sb *backend.Sandbox) *Backend {
	info := backend.Info{Embedded: true}
	open := func(ctx context.Context) (sim.Store, func(), error) {
		be, err := sb.Backend(ctx)
		if err != nil {
			return nil, nil, err
		}
		return storeOf(ctx, be)
	}
	return &Backend{Name: info.String(), Msg: infoMsg(info), worker: open, replay: open}
}

// Model runs the transitions and the replays on the pure-Go reference model
// (sim/refmodel) instead of Lua on Redis: what the search costs without
// real scripts (bench) and a cross-check of the search (tests).
func Model() *Backend {
	open := func(context.Context) (sim.Store, func(), error) {
		return modelStore{m: refmodel.New()}, func() {}, nil
	}
	return &Backend{Name: "reference model (sim/refmodel)", Msg: sim.M("backend-model"), worker: open, replay: open}
}

// infoMsg is a Redis backend's description as a message code
// (backend.Info.Message).
func infoMsg(i backend.Info) sim.Msg { return i.Message() }

// storeOf opens a run's store on be.
func storeOf(ctx context.Context, be *backend.Backend) (sim.Store, func(), error) {
	st, err := be.NewStore()
	if err != nil {
		return nil, nil, err
	}
	return st, func() { st.Close(context.WithoutCancel(ctx)) }, nil
}
