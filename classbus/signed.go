package classbus

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrForged is wrapped by Signed's State for a state whose signature does
// not match: it was not written by a server given the secret.
var ErrForged = errors.New("classbus: class state not signed with the class secret")

// MinSecretLen is the shortest secret Signed accepts, in bytes.
const MinSecretLen = 16

// Signed is a Bus that signs what it publishes and keeps, and takes only
// what is signed, with a secret every server sharing the bus is given
// (serve -classroom-secret; issue 37, item 8: one PUBLISH of a forged
// state on the shared Redis moved every student and knocked the presenter
// out). Each message and state is sent as "MAC.payload", the MAC being
// HMAC-SHA256 (base64url) over the kind ("m" or "s"), the class code and
// the payload, so that one class's message does not verify for another.
// A message that does not verify is dropped (and counted, Forged); a state
// that does not verify is ErrForged. Anyone who can write to the Redis can
// still delete a class's key or flood its channel: the secret keeps them
// from speaking for a class, not from silencing it.
type Signed struct {
	inner  Bus
	secret []byte

	mu     sync.Mutex
	forged int
}

// NewSigned returns inner signed with secret (at least MinSecretLen bytes).
func NewSigned(inner Bus, secret []byte) (*Signed, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("classbus: class secret of %d bytes; want %d or more", len(secret), MinSecretLen)
	}
	return &Signed{inner: inner, secret: append([]byte(nil), secret...)}, nil
}

func (s *Signed) mac(kind, code string, payload []byte) []byte {
	h := hmac.New(sha256.New, s.secret)
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(code))
	h.Write([]byte{0})
	h.Write(payload)
	sum := h.Sum(nil)
	out := make([]byte, base64.RawURLEncoding.EncodedLen(len(sum)))
	base64.RawURLEncoding.Encode(out, sum)
	return out
}

func (s *Signed) seal(kind, code string, payload []byte) []byte {
	m := s.mac(kind, code, payload)
	out := make([]byte, 0, len(m)+1+len(payload))
	out = append(append(append(out, m...), '.'), payload...)
	return out
}

// open returns the payload of b when its MAC verifies.
func (s *Signed) open(kind, code string, b []byte) ([]byte, bool) {
	n := base64.RawURLEncoding.EncodedLen(sha256.Size)
	if len(b) < n+1 || b[n] != '.' {
		return nil, false
	}
	payload := b[n+1:]
	return payload, hmac.Equal(b[:n], s.mac(kind, code, payload))
}

// Forged is how many messages Signed dropped for a bad signature.
func (s *Signed) Forged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forged
}

// Publish implements Bus.
func (s *Signed) Publish(ctx context.Context, code string, msg []byte) error {
	return s.inner.Publish(ctx, code, s.seal("m", code, msg))
}

// SetState implements Bus.
func (s *Signed) SetState(ctx context.Context, code string, state []byte, ttl time.Duration) error {
	return s.inner.SetState(ctx, code, s.seal("s", code, state), ttl)
}

// State implements Bus.
func (s *Signed) State(ctx context.Context, code string) ([]byte, error) {
	b, err := s.inner.State(ctx, code)
	if err != nil {
		return nil, err
	}
	p, ok := s.open("s", code, b)
	if !ok {
		return nil, fmt.Errorf("%w (class %s)", ErrForged, code)
	}
	return p, nil
}

// DeleteState implements Bus.
func (s *Signed) DeleteState(ctx context.Context, code string) error {
	return s.inner.DeleteState(ctx, code)
}

// Close implements Bus.
func (s *Signed) Close() error { return s.inner.Close() }

// Err is the inner bus's Err when it has one (Redis): whether its
// transport is down.
func (s *Signed) Err() error {
	if e, ok := s.inner.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// Subscribe implements Bus: the subscription delivers the messages that
// verify, through a goroutine of its own (which holds one message more
// than the inner subscription's buffer before a lag ends it).
func (s *Signed) Subscribe(ctx context.Context, code string) (Subscription, error) {
	in, err := s.inner.Subscribe(ctx, code)
	if err != nil {
		return nil, err
	}
	out := &signedSub{in: in, ch: make(chan []byte), done: make(chan struct{})}
	go func() {
		defer close(out.ch)
		for b := range in.C() {
			p, ok := s.open("m", code, b)
			if !ok {
				s.mu.Lock()
				s.forged++
				s.mu.Unlock()
				continue
			}
			select {
			case out.ch <- p:
			case <-out.done:
				return
			}
		}
	}()
	return out, nil
}

// signedSub is a subscription of Signed: in's messages that verify.
type signedSub struct {
	in   Subscription
	ch   chan []byte
	done chan struct{}
	once sync.Once
}

func (s *signedSub) C() <-chan []byte { return s.ch }
func (s *signedSub) Err() error       { return s.in.Err() }
func (s *signedSub) Close() error {
	s.once.Do(func() { close(s.done) })
	return s.in.Close()
}
