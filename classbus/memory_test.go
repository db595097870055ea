package classbus

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestMemoryDeliversInOrderToEverySubscriber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := NewMemory(nil)
	defer bus.Close()
	a, err := bus.Subscribe(ctx, "ABC")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bus.Subscribe(ctx, "ABC")
	other, _ := bus.Subscribe(ctx, "XYZ")
	for _, m := range []string{"1", "2", "3"} {
		if err := bus.Publish(ctx, "ABC", []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []Subscription{a, b} {
		for _, want := range []string{"1", "2", "3"} {
			if got := string(<-s.C()); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	}
	select {
	case m := <-other.C():
		t.Fatalf("class XYZ got %q, published to ABC", m)
	default:
	}
}

func TestMemoryDropsALaggingSubscriber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := NewMemory(nil)
	bus.buffer = testBuffer
	s, _ := bus.Subscribe(ctx, "ABC")
	for i := 0; i <= testBuffer; i++ {
		if err := bus.Publish(ctx, "ABC", []byte("m")); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for range s.C() {
		n++
	}
	if n != testBuffer || !errors.Is(s.Err(), ErrLagged) {
		t.Fatalf("read %d messages, err %v; want %d and ErrLagged", n, s.Err(), testBuffer)
	}
}

func TestMemoryEndsSubscriptions(t *testing.T) {
	t.Parallel()
	bus := NewMemory(nil)
	ctx, cancel := context.WithCancel(context.Background())
	byCtx, _ := bus.Subscribe(ctx, "ABC")
	byClose, _ := bus.Subscribe(context.Background(), "ABC")
	byBus, _ := bus.Subscribe(context.Background(), "ABC")
	cancel()
	_, open := <-byCtx.C()
	if open || !errors.Is(byCtx.Err(), context.Canceled) {
		t.Fatalf("after cancel: open %v, err %v", open, byCtx.Err())
	}
	byClose.Close()
	byClose.Close()
	if _, open := <-byClose.C(); open || byClose.Err() != nil {
		t.Fatalf("after Close: open %v, err %v", open, byClose.Err())
	}
	bus.Close()
	if _, open := <-byBus.C(); open || !errors.Is(byBus.Err(), ErrClosed) {
		t.Fatalf("after bus Close: open %v, err %v", open, byBus.Err())
	}
	if err := bus.Publish(context.Background(), "ABC", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Publish after Close: %v", err)
	}
}

func TestMemoryStateExpires(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(0, 0)
	bus := NewMemory(func() time.Time { return now })
	defer bus.Close()
	if _, err := bus.State(ctx, "ABC"); !errors.Is(err, ErrNoClass) {
		t.Fatalf("State of an unknown class: %v", err)
	}
	if err := bus.SetState(ctx, "ABC", []byte("s1"), time.Second); err != nil {
		t.Fatal(err)
	}
	now = now.Add(999 * time.Millisecond)
	if got, err := bus.State(ctx, "ABC"); err != nil || string(got) != "s1" {
		t.Fatalf("State before its TTL: %q, %v", got, err)
	}
	now = now.Add(time.Millisecond)
	if _, err := bus.State(ctx, "ABC"); !errors.Is(err, ErrNoClass) {
		t.Fatalf("State after its TTL: %v", err)
	}
	_ = bus.SetState(ctx, "ABC", []byte("s2"), time.Minute)
	if err := bus.DeleteState(ctx, "ABC"); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.State(ctx, "ABC"); !errors.Is(err, ErrNoClass) {
		t.Fatalf("State after DeleteState: %v", err)
	}
}
