package backend

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// When a run ends while its Redis cannot be reached, its keys stay until
// their TTLs run out (hardening finding 9: a lock key and a fencing key of
// 24 h were left). The backend keeps such keys and deletes them once Redis
// answers again: a goroutine tries again after DeleteRetry, then after twice
// that, up to a minute, until every pending key is deleted or would have
// expired anyway; Backend.Close tries once more.

// DefaultDeleteRetry is the first wait before deleting a finished run's
// keys again, when Config.DeleteRetry is 0.
const DefaultDeleteRetry = time.Second

const maxDeleteRetry = time.Minute

// pendingDelete is a finished run's keys that could not be deleted.
type pendingDelete struct {
	prefix   string
	keys     []string
	expireBy time.Time // every key has expired by then
}

// cleaner retries the deletion of finished runs' keys.
type cleaner struct {
	mu      sync.Mutex
	pending []pendingDelete
	trying  int // runs taken from pending by a try under way
	running bool
	stop    chan struct{} // closed by Backend.Close
	done    chan struct{} // closed when the retry goroutine has ended
}

// retryDelete keeps keys (under prefix) to delete later; expireBy is when
// they will all have expired.
func (b *Backend) retryDelete(prefix string, keys []string, expireBy time.Time) {
	c := &b.cleanup
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.stop:
		return // closing: Close has made its last try
	default:
	}
	c.pending = append(c.pending, pendingDelete{prefix: prefix, keys: keys, expireBy: expireBy})
	if !c.running {
		c.running = true
		c.done = make(chan struct{})
		go b.retryLoop()
	}
}

// PendingDeletes returns the number of finished runs whose keys are still
// to be deleted.
func (b *Backend) PendingDeletes() int {
	b.cleanup.mu.Lock()
	defer b.cleanup.mu.Unlock()
	return len(b.cleanup.pending) + b.cleanup.trying
}

func (b *Backend) retryLoop() {
	c := &b.cleanup
	defer close(c.done)
	wait := b.cfg.DeleteRetry
	if wait <= 0 {
		wait = DefaultDeleteRetry
	}
	for {
		select {
		case <-c.stop:
			return
		case <-time.After(wait):
		}
		if b.deletePending(context.Background()) == 0 {
			c.mu.Lock()
			if len(c.pending) == 0 {
				c.running = false
				c.mu.Unlock()
				return
			}
			c.mu.Unlock()
		}
		wait = min(2*wait, maxDeleteRetry)
	}
}

// deletePending tries to delete every pending run's keys, each within 3 s,
// drops those deleted or expired, and returns how many remain.
func (b *Backend) deletePending(ctx context.Context) int {
	c := &b.cleanup
	c.mu.Lock()
	todo := c.pending
	c.pending = nil
	// The runs being tried still count as pending until their try ends, so
	// that PendingDeletes never reports 0 while a DEL is on its way.
	c.trying = len(todo)
	c.mu.Unlock()
	var left []pendingDelete
	for _, p := range todo {
		if time.Now().After(p.expireBy) {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := b.client.Del(dctx, p.keys...).Err()
		cancel()
		if err != nil {
			left = append(left, p)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trying = 0
	c.pending = append(left, c.pending...)
	return len(c.pending)
}

// closeCleanup stops the retries and makes one last try; it returns an
// error naming what is left.
func (b *Backend) closeCleanup(ctx context.Context) error {
	c := &b.cleanup
	c.mu.Lock()
	close(c.stop)
	running, done := c.running, c.done
	c.mu.Unlock()
	if running {
		<-done
	}
	if b.deletePending(ctx) == 0 {
		return nil
	}
	var prefixes []string
	for _, p := range b.cleanup.pending {
		prefixes = append(prefixes, p.prefix)
	}
	sort.Strings(prefixes)
	return fmt.Errorf("backend: the keys of %d finished runs could not be deleted (they expire by their TTLs): %v", len(prefixes), prefixes)
}
