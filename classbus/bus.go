// Package classbus carries a class's messages between Lockstep servers
// (issue 20): the presenter's steps, the questions put to the room, the
// students' answers and the end of a class. A Bus is all a class needs from
// outside its own process: publish and subscribe on one channel per class,
// and the class's current state kept where any server can read it, so that a
// student who joins late, reconnects or lands on another server starts from
// the presenter's current step.
//
// Memory is the bus of one process, the default: classes live in the
// process and end with it. Redis (redis.go: Redis pub/sub, one channel per
// class, state in keys with TTLs, all under Lockstep's "lockstep:"
// namespace) lets several servers behind a load balancer share their
// classes.
//
// Subscribers share the bytes a bus delivers: they must not change them.
//
// Messages are opaque bytes to a bus: what they say is the class protocol's
// business (package web), not the transport's.
package classbus

import (
	"context"
	"errors"
	"time"
)

// ErrNoClass is what Bus.State returns when no state is kept for a class
// code: it was never set, it was deleted (the class ended) or its TTL ran out.
var ErrNoClass = errors.New("classbus: no such class")

// ErrLagged is a Subscription's Err after the bus dropped it because its
// reader fell more than the subscription's buffer behind. The subscriber
// subscribes again and reads the class's State to catch up: a class's state
// is whole in every state message, so nothing a student needs is lost.
var ErrLagged = errors.New("classbus: subscriber fell behind")

// ErrInterrupted is a Subscription's Err after its bus lost its connection
// to the class's transport and made it again (the Redis bus, redis.go):
// messages published while the connection was down are lost. Like after
// ErrLagged, the subscriber subscribes again and reads the class's State.
// The bus ends such subscriptions when the connection is back, not when it
// is lost, so that subscribing again succeeds at once.
var ErrInterrupted = errors.New("classbus: connection to the bus was interrupted")

// ErrUnavailable is wrapped by the error of a bus method that could not
// reach the bus's transport (Redis down or unreachable), as opposed to a
// refusal (an ACL, say) or the caller's ctx: callers tell the presenter that
// the class is cut off, and try again later. Redis.Err reports the same
// while the bus's subscription connection is lost. Memory never returns it.
var ErrUnavailable = errors.New("classbus: the bus is unavailable")

// ErrClosed is returned by every method of a Bus after Close, and is a
// Subscription's Err when its bus was closed.
var ErrClosed = errors.New("classbus: bus closed")

// Bus is one class transport shared by the servers that use it.
type Bus interface {
	// Publish sends msg to every subscriber of class code on every server
	// that shares the bus, this one included. Messages from one publisher
	// arrive in the order they were published. It does not wait for
	// subscribers to read. The caller must not change msg afterwards.
	Publish(ctx context.Context, code string, msg []byte) error
	// Subscribe starts delivering the messages published to class code from
	// now on. The subscription lasts until it is closed, ctx ends or the bus
	// drops it (see Subscription.Err).
	Subscribe(ctx context.Context, code string) (Subscription, error)
	// SetState keeps state as class code's current state for ttl (rounded up
	// to whole milliseconds, at least 1 ms), replacing what was kept.
	SetState(ctx context.Context, code string, state []byte, ttl time.Duration) error
	// State returns class code's current state, or ErrNoClass.
	State(ctx context.Context, code string) ([]byte, error)
	// DeleteState forgets class code's state (the class ended). Deleting a
	// state that is not kept is not an error.
	DeleteState(ctx context.Context, code string) error
	// Close ends every subscription and releases the bus's connections.
	Close() error
}

// Subscription is one subscriber's view of a class channel.
type Subscription interface {
	// C delivers the class's messages in order. It is closed when the
	// subscription ends; Err then says why.
	C() <-chan []byte
	// Err is nil while C is open. After C is closed it is nil when the
	// subscriber closed it, ctx's error when its ctx ended, ErrLagged when it
	// fell behind, ErrInterrupted when the bus's connection was lost and
	// came back, ErrClosed when the bus closed. After ErrLagged and
	// ErrInterrupted the owner subscribes again and reloads State.
	Err() error
	// Close ends the subscription. It is safe to call more than once.
	Close() error
}
