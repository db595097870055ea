package classbus

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// KeyPrefix starts every key and channel the Redis bus uses: Lockstep's
// namespace (backend.KeyNamespace), so that the ACL rules Lockstep already
// asks for (~lockstep:* &lockstep:*, backend.ACLRules) cover the bus too.
const KeyPrefix = "lockstep:"

// EventsChannel is the Redis pub/sub channel of class code's messages,
// "lockstep:{class-CODE}:events". The braces are a Redis Cluster hash tag:
// a class's channel and state key hash to the same slot.
func EventsChannel(code string) string { return KeyPrefix + "{class-" + code + "}:events" }

// StateKey is the Redis key of class code's state,
// "lockstep:{class-CODE}:state", kept with a TTL (SET ... PX).
func StateKey(code string) string { return KeyPrefix + "{class-" + code + "}:state" }

// DefaultHealthInterval is how long the Redis bus's subscription connection
// may stay silent before the bus sends it a PING; a PING left unanswered
// for as long again counts as a lost connection.
const DefaultHealthInterval = 2 * time.Second

// subscribeWait bounds how long Subscribe waits for Redis to confirm a
// SUBSCRIBE.
const subscribeWait = 5 * time.Second

// RedisOptions configures a Redis bus. The zero value is ready to use.
type RedisOptions struct {
	// HealthInterval: see DefaultHealthInterval (0 means that).
	HealthInterval time.Duration
	// Buffer is how many messages a subscriber may lag behind before the bus
	// drops it with ErrLagged; 0 means 4,096, as Memory.
	Buffer int
}

// Redis is the Bus on Redis pub/sub, shared by every Lockstep server that
// connects to the same Redis (a single server or a Cluster, through a
// go-redis UniversalClient): PUBLISH and SUBSCRIBE on EventsChannel(code),
// the state in StateKey(code) with SET PX, GET and DEL. It never runs KEYS,
// FLUSHDB or CONFIG SET.
//
// All local subscriptions, of every class, share one pub/sub connection:
// the bus SUBSCRIBEs to a class's channel when its first local subscriber
// comes and UNSUBSCRIBEs when its last one leaves, and one reader goroutine
// hands each message to the class's local subscribers.
//
// Outages: Publish, SetState, State, DeleteState and Subscribe fail with an
// error that wraps ErrUnavailable while Redis cannot be reached, and Err
// reports the subscription connection's health (a Redis that hangs is
// found by PINGs, see DefaultHealthInterval). The bus reconnects by itself (waiting
// 100 ms, doubling up to 2 s, between attempts); once a connection
// answers again, every subscription that was open while the connection was lost
// ends with ErrInterrupted, since messages published meanwhile were lost
// with the connection (Redis pub/sub keeps nothing for an absent
// subscriber). A Redis restarted without persistence has also lost the
// classes' states: the server that runs a class sets it again.
type Redis struct {
	client   redis.UniversalClient
	interval time.Duration
	buffer   int

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	done   chan struct{} // closed when the reader goroutine returns

	mu        sync.Mutex
	closed    bool
	ps        *redis.PubSub // the current generation's connection; nil between generations
	gen       uint64        // incremented each time a connection is lost
	connErr   error         // why the connection is down; nil while it is up
	connected bool          // a connection answered once: Subscribe no longer waits for the first
	channels  map[string]*redisChannel
}

// redisChannel is the bus's view of one class channel on the current
// connection. sent counts the SUBSCRIBE commands for it on the current
// connection and acked their confirmations read so far (Redis answers in
// order), so the channel is subscribed at Redis when want && acked == sent.
type redisChannel struct {
	subs        map[*redisSub]struct{}
	want        bool
	sent, acked int
	ready       chan struct{} // closed when the latest SUBSCRIBE is confirmed
}

// NewRedis returns a bus on client and starts its reader goroutine. The
// caller keeps owning client: Close stops the bus, not the client.
func NewRedis(client redis.UniversalClient, opt RedisOptions) *Redis {
	if opt.HealthInterval <= 0 {
		opt.HealthInterval = DefaultHealthInterval
	}
	if opt.Buffer <= 0 {
		opt.Buffer = subscriptionBuffer
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Redis{client: client, interval: opt.HealthInterval, buffer: opt.Buffer,
		ctx: ctx, cancel: cancel, done: make(chan struct{}), channels: map[string]*redisChannel{},
		connErr: fmt.Errorf("%w: not connected yet", ErrUnavailable)}
	go r.run()
	return r
}

// Err reports the health of the bus's subscription connection: nil while it
// is up, an error wrapping ErrUnavailable while it is lost (or not yet
// made), ErrClosed after Close.
func (r *Redis) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	return r.connErr
}

// Publish implements Bus with PUBLISH on EventsChannel(code).
func (r *Redis) Publish(ctx context.Context, code string, msg []byte) error {
	if err := r.usable(ctx); err != nil {
		return err
	}
	// PUBLISH has no key, and a cluster client sends a keyless command to
	// any node: two messages through two nodes can overtake each other on
	// the cluster bus. Routing it by the channel's name (its hash tag, the
	// state key's slot) sends every message of a class through one node,
	// which keeps their order.
	cmd := redis.NewIntCmd(ctx, "publish", EventsChannel(code), msg)
	cmd.SetFirstKeyPos(1)
	_ = r.client.Process(ctx, cmd)
	return r.wrap("publish to class "+code, cmd.Err())
}

// SetState implements Bus with SET StateKey(code) state PX ttl.
func (r *Redis) SetState(ctx context.Context, code string, state []byte, ttl time.Duration) error {
	if err := r.usable(ctx); err != nil {
		return err
	}
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	ttl = (ttl + time.Millisecond - 1).Truncate(time.Millisecond)
	return r.wrap("set the state of class "+code, r.client.Set(ctx, StateKey(code), state, ttl).Err())
}

// State implements Bus with GET StateKey(code).
func (r *Redis) State(ctx context.Context, code string) ([]byte, error) {
	if err := r.usable(ctx); err != nil {
		return nil, err
	}
	b, err := r.client.Get(ctx, StateKey(code)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNoClass
	}
	if err != nil {
		return nil, r.wrap("read the state of class "+code, err)
	}
	return b, nil
}

// DeleteState implements Bus with DEL StateKey(code).
func (r *Redis) DeleteState(ctx context.Context, code string) error {
	if err := r.usable(ctx); err != nil {
		return err
	}
	return r.wrap("delete the state of class "+code, r.client.Del(ctx, StateKey(code)).Err())
}

func (r *Redis) usable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	return nil
}

// wrap names what failed; an error of the connection (not a reply error
// from the server, nor the caller's ctx) also wraps ErrUnavailable.
func (r *Redis) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var reply redis.Error
	if errors.As(err, &reply) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("classbus: %s: %w", what, err)
	}
	return fmt.Errorf("classbus: %s: %w: %w", what, ErrUnavailable, err)
}

// Subscribe implements Bus. The first local subscriber of a class makes the
// bus SUBSCRIBE to its channel; Subscribe returns once Redis has confirmed
// it, so every message published after Subscribe returns is delivered.
// While the connection is lost (after it was made once: a new bus waits
// for its first), or when Redis does not confirm within subscribeWait, it
// fails with an error wrapping ErrUnavailable: the caller tries again
// later.
func (r *Redis) Subscribe(ctx context.Context, code string) (Subscription, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	name := EventsChannel(code)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if r.connErr != nil && r.connected {
		err := r.connErr
		r.mu.Unlock()
		return nil, fmt.Errorf("classbus: subscribe to class %s: %w", code, err)
	}
	c := r.channels[name]
	if c == nil {
		c = &redisChannel{subs: map[*redisSub]struct{}{}, ready: make(chan struct{})}
		r.channels[name] = c
	}
	s := &redisSub{channel: name}
	s.subscription = subscription{mu: &r.mu, ch: make(chan []byte, r.buffer), leave: func() { r.dropLocked(s, nil) }}
	c.subs[s] = struct{}{}
	if !c.want {
		c.want = true
		if c.acked == c.sent {
			c.ready = make(chan struct{})
		}
		if r.ps != nil {
			c.sent++
			// A failed write is seen by the reader too, which then starts a
			// new connection that subscribes to every wanted channel.
			_ = r.ps.Subscribe(r.ctx, name)
		}
	}
	ready := c.ready
	r.mu.Unlock()

	wait := time.NewTimer(subscribeWait)
	defer wait.Stop()
	for {
		select {
		case <-ready:
		case <-ctx.Done():
			s.Close()
			return nil, ctx.Err()
		case <-r.ctx.Done():
			s.Close()
			return nil, ErrClosed
		case <-wait.C:
			s.Close()
			return nil, fmt.Errorf("classbus: subscribe to class %s: %w: Redis did not confirm within %s", code, ErrUnavailable, subscribeWait)
		}
		r.mu.Lock()
		if s.ended {
			r.mu.Unlock()
			return nil, s.err
		}
		if c.ready == ready {
			break
		}
		// The connection was lost after the confirmation: wait for the
		// next connection's.
		ready = c.ready
		r.mu.Unlock()
	}
	defer r.mu.Unlock()
	s.gen = r.gen
	s.live = true
	if ctx.Done() != nil {
		s.stop = context.AfterFunc(ctx, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.dropLocked(s, ctx.Err())
		})
	}
	return s, nil
}

// Close implements Bus: every subscription ends with ErrClosed and the
// pub/sub connection is closed. The client stays open.
func (r *Redis) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	for _, c := range r.channels {
		for s := range c.subs {
			r.dropLocked(s, ErrClosed)
		}
	}
	ps := r.ps
	r.mu.Unlock()
	r.cancel()
	if ps != nil {
		_ = ps.Close() // ends the reader's blocked read
	}
	<-r.done
	return nil
}

// run is the reader goroutine: one connection generation after another
// until Close.
func (r *Redis) run() {
	defer close(r.done)
	backoff := 100 * time.Millisecond
	for r.ctx.Err() == nil {
		if err := r.serve(); err != nil && r.ctx.Err() == nil {
			r.lost(err)
			select {
			case <-r.ctx.Done():
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
	}
}

// serve makes a new pub/sub connection, subscribes it to every wanted
// channel and reads it until it fails.
func (r *Redis) serve() error {
	ps := r.client.Subscribe(r.ctx)
	defer ps.Close()
	// Connect (and PING) before taking r.mu: dialling a Redis that is down
	// takes up to the client's dial timeout.
	if err := ps.Ping(r.ctx); err != nil {
		return err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	var names []string
	for name, c := range r.channels {
		if c.want {
			c.sent, c.acked = 1, 0
			names = append(names, name)
		}
	}
	r.ps = ps
	var err error
	if len(names) > 0 {
		// Under r.mu, so that no UNSUBSCRIBE of these channels goes first.
		err = ps.Subscribe(r.ctx, names...)
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.ps = nil
		r.mu.Unlock()
	}()
	if err != nil {
		return err
	}
	first, pinged := true, false
	for {
		msg, err := ps.ReceiveTimeout(r.ctx, r.interval)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !pinged {
				if err := ps.Ping(r.ctx); err != nil {
					return err
				}
				pinged = true
				continue
			}
			return err
		}
		pinged = false
		if first {
			first = false
			r.back()
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			r.confirm(m)
		case *redis.Message:
			r.deliver(m.Channel, []byte(m.Payload))
		}
	}
}

// lost records that the connection failed: subscriptions open now may miss
// messages until it comes back, and each channel's acknowledgements start
// over on the next connection.
func (r *Redis) lost(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if r.connErr == nil {
		r.gen++
	}
	r.connErr = fmt.Errorf("%w: %w", ErrUnavailable, err)
	for name, c := range r.channels {
		if !c.want && len(c.subs) == 0 {
			delete(r.channels, name)
			continue
		}
		c.sent, c.acked = 0, 0
		if c.want && isClosed(c.ready) {
			c.ready = make(chan struct{})
		}
	}
}

// back records that a connection answers again, and ends with
// ErrInterrupted every subscription made before the connection was lost.
func (r *Redis) back() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.connErr, r.connected = nil, true
	for _, c := range r.channels {
		for s := range c.subs {
			if s.live && s.gen < r.gen {
				r.dropLocked(s, ErrInterrupted)
			}
		}
	}
}

// confirm counts Redis's confirmation of a SUBSCRIBE or UNSUBSCRIBE.
func (r *Redis) confirm(m *redis.Subscription) {
	if m.Kind != "subscribe" {
		if m.Kind == "unsubscribe" {
			r.mu.Lock()
			r.forgetLocked(m.Channel)
			r.mu.Unlock()
		}
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.channels[m.Channel]
	if c == nil {
		return
	}
	c.acked++
	if c.acked >= c.sent {
		c.acked = c.sent
		if c.want && !isClosed(c.ready) {
			close(c.ready)
		}
	}
	r.forgetLocked(m.Channel)
}

// forgetLocked deletes a channel nobody wants once Redis has confirmed
// every SUBSCRIBE sent for it, so that a later confirmation belongs to a
// later SUBSCRIBE. r.mu is held.
func (r *Redis) forgetLocked(name string) {
	if c := r.channels[name]; c != nil && !c.want && len(c.subs) == 0 && c.acked == c.sent {
		delete(r.channels, name)
	}
}

// deliver hands msg to every live subscriber of channel without waiting,
// dropping one whose buffer is full (ErrLagged). Subscribers share msg.
func (r *Redis) deliver(channel string, msg []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.channels[channel]
	if c == nil {
		return
	}
	for s := range c.subs {
		if !s.live {
			continue
		}
		select {
		case s.ch <- msg:
		default:
			r.dropLocked(s, ErrLagged)
		}
	}
}

// dropLocked ends s with err (nil: closed by its subscriber) and
// UNSUBSCRIBEs from its channel when it was the last. r.mu is held.
func (r *Redis) dropLocked(s *redisSub, err error) {
	if s.ended {
		return
	}
	s.ended = true
	s.err = err
	if s.stop != nil {
		s.stop()
	}
	close(s.ch)
	c := r.channels[s.channel]
	if c == nil {
		return
	}
	delete(c.subs, s)
	if len(c.subs) > 0 || !c.want {
		return
	}
	c.want = false
	if r.ps != nil && !r.closed {
		_ = r.ps.Unsubscribe(r.ctx, s.channel)
	}
	r.forgetLocked(s.channel)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// redisSub is a subscription to one class of a Redis bus.
type redisSub struct {
	subscription
	channel string
	// Guarded by the bus's mu.
	live  bool   // Subscribe returned it
	gen   uint64 // the bus's generation when it went live
	ended bool
	stop  func() bool
}
