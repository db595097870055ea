package searchpage

import (
	"sync"
	"time"
)

// searchShares shares the search slots (Config.Max) between
// addresses (issue 37, item 6: on two cores one address held the only
// slot for the whole of its search's minute, and could start the next
// one at once). When every slot is taken, a search asked for by an
// address with none running takes the
// slot of the search that has run the longest, if that one has run
// Config.Share at least: it stops (its result says so, stopped
// "shared") and reports what it found. Otherwise the new search is
// refused (search-full).
type searchShares struct {
	mu      sync.Mutex
	max     int
	share   time.Duration
	now     func() time.Time
	running map[*searchHold]struct{}
}

// searchHold is one running search's slot.
type searchHold struct {
	addr  string
	start time.Time
	// yield stops the search when another address takes its slot.
	yield func()
}

func newSearchShares(max int, share time.Duration) *searchShares {
	return &searchShares{max: max, share: share, now: time.Now, running: map[*searchHold]struct{}{}}
}

// take gives addr a slot for a search that yield stops; nil when the
// slots are taken and none may be taken over.
func (sh *searchShares) take(addr string, yield func()) *searchHold {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	now := sh.now()
	h := &searchHold{addr: addr, start: now, yield: yield}
	if len(sh.running) < sh.max {
		sh.running[h] = struct{}{}
		return h
	}
	var oldest *searchHold
	for o := range sh.running {
		if o.addr == addr {
			return nil // its own search holds a slot: wait for it
		}
		if oldest == nil || o.start.Before(oldest.start) {
			oldest = o
		}
	}
	if oldest == nil || now.Sub(oldest.start) < sh.share {
		return nil
	}
	// The slot is the newcomer's from now; the old search ends within a
	// transition of its context's cancel.
	delete(sh.running, oldest)
	oldest.yield()
	sh.running[h] = struct{}{}
	return h
}

// release frees h's slot (once; a slot taken over is free already).
func (sh *searchShares) release(h *searchHold) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	delete(sh.running, h)
}

// len is how many slots are held.
func (sh *searchShares) len() int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.running)
}

// setClock makes the shares read time from now (tests).
func (sh *searchShares) setClock(now func() time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.now = now
}
