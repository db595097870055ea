package backend

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"lockstep/sim"
)

// sandboxPair is the primary and replica of a learner's lock's run with a
// replica in the Lua sandbox: two miniredis of the run's own that the
// sandbox's process starts (Backend.spawn), reached over loopback. It is
// the embedded pair (replica.go) on the wall clock: every step restores
// the run's keys with their PTTLs, as on any server the store reaches over
// the network; a Replicated batch's keys are copied onto the replica with
// lua/restore.lua; at Failover the store's client becomes the replica's.
// So the frames are those of the in-process embedded pair.
type sandboxPair struct {
	pc, rc     *redis.Client
	release    []func()
	failedOver bool
}

// sandboxPair starts the run's two servers in the sandbox's process.
func (s *Store) sandboxPair(ctx context.Context) (*sandboxPair, error) {
	p := &sandboxPair{}
	for _, role := range []string{"primary", "replica"} {
		c, release, err := s.be.spawn(ctx)
		if err != nil {
			p.close()
			return nil, fmt.Errorf("backend: start the %s: %w", role, err)
		}
		p.release = append(p.release, release)
		if p.pc == nil {
			p.pc = c
		} else {
			p.rc = c
		}
	}
	return p, nil
}

func (p *sandboxPair) before(_ context.Context, s *Store, b *sim.Batch) error {
	if b.Replica == sim.Failover && !p.failedOver {
		// The primary is dead to the run from here on; close shuts it down.
		s.client, p.failedOver = p.rc, true
	}
	return nil
}

// after copies what a Replicated batch read on the primary (the state of
// every key of the run, with its PTTL) onto the replica.
func (p *sandboxPair) after(ctx context.Context, s *Store, b *sim.Batch, res *sim.BatchResult) error {
	if b.Replica != sim.Replicated || p.failedOver || len(res.Keys) == 0 {
		return nil
	}
	keys, args := restoreArgs(s, res.Keys)
	if err := restoreScript.Run(ctx, p.rc, keys, args...).Err(); err != nil {
		return fmt.Errorf("backend: replicate to the sandbox's replica: %w", err)
	}
	return nil
}

func (p *sandboxPair) close() {
	for _, c := range []*redis.Client{p.pc, p.rc} {
		if c != nil {
			c.Close()
		}
	}
	for _, r := range p.release {
		r()
	}
}
