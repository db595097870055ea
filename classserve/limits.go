package classserve

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"lockstep/classroom"
)

// ErrCodeClassLimit: a class-start or class-resume over Config.MaxClasses
// or Config.MaxClassesPerAddr.
const ErrCodeClassLimit = "class-limit"

// classCounts bounds the classes this server owns (issue 37, item 3:
// 3,000 class starts from one client took 553 MB): Config.MaxClasses in
// all and Config.MaxClassesPerAddr per presenter's address. A class is
// counted from its start (or resume) here until its goroutine ends: ended,
// resumed elsewhere, idle, or dropped after Config.Grace without a
// presenter (dropUnheld). globalJoins is the failed-join bound of every
// address together (Config.JoinGlobalRate).
type classCounts struct {
	mu      sync.Mutex
	max     int
	perAddr int
	total   int
	byAddr  map[string]int
	addrOf  map[*ownedClass]string
	// ended are classes whose goroutine ended before bind counted them.
	ended map[*ownedClass]bool

	globalJoins *rate.Limiter
}

// reserve counts a class about to be started or resumed from addr; false
// when a bound is reached. A reservation is bound to its class (bind) or
// given back (unreserve).
func (cc *classCounts) reserve(addr string) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.total >= cc.max || cc.byAddr[addr] >= cc.perAddr {
		return false
	}
	cc.total++
	cc.byAddr[addr]++
	return true
}

// unreserve gives back a reservation of addr.
func (cc *classCounts) unreserve(addr string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.uncountLocked(addr)
}

func (cc *classCounts) uncountLocked(addr string) {
	cc.total--
	if cc.byAddr[addr]--; cc.byAddr[addr] <= 0 {
		delete(cc.byAddr, addr)
	}
}

// bind counts oc under addr's reservation; a class counted already (a
// resume of a class owned here) or gone already gives the reservation back.
func (cc *classCounts) bind(oc *ownedClass, addr string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if _, ok := cc.addrOf[oc]; ok || cc.ended[oc] {
		delete(cc.ended, oc)
		cc.uncountLocked(addr)
		return
	}
	cc.addrOf[oc] = addr
}

// release uncounts oc: it retired, or its goroutine ended. Only the
// first release of a class counts (ownedClass.released).
func (cc *classCounts) release(oc *ownedClass) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if oc.released {
		return
	}
	oc.released = true
	addr, ok := cc.addrOf[oc]
	if !ok {
		if cc.ended == nil {
			cc.ended = map[*ownedClass]bool{}
		}
		cc.ended[oc] = true
		return
	}
	delete(cc.addrOf, oc)
	cc.uncountLocked(addr)
}

// counted is how many classes are counted, in all.
func (cc *classCounts) counted() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.total
}

// classLimitErr is the error of a class-start or class-resume over a bound.
func (s *Hub) classLimitErr() error {
	return perr(ErrCodeClassLimit, "class-limit", "Max", s.cfg.MaxClasses, "PerAddr", s.cfg.MaxClassesPerAddr)
}

// unheldLocked starts the grace of a class left without a presenter's
// page (oc.mu held): dropUnheld ends it unless a presenter comes back.
func (oc *ownedClass) unheldLocked() {
	if len(oc.presenters) > 0 || oc.retired {
		return
	}
	oc.unheld = time.Now()
	time.AfterFunc(oc.srv.cfg.Grace, oc.dropUnheld)
}

// dropUnheld ends the class when no presenter's page has held it for the
// grace: its students get the end, its state leaves the bus at once (not
// after classEndedTTL) and its goroutine ends, which uncounts it.
func (oc *ownedClass) dropUnheld() {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	grace := oc.srv.cfg.Grace
	if oc.retired || len(oc.presenters) > 0 || oc.unheld.IsZero() || time.Since(oc.unheld) < grace {
		return
	}
	now := time.Now()
	ctx, cancel := context.WithTimeout(oc.srv.ctx, busTimeout)
	defer cancel()
	oc.c.End(classroom.EndIdle, now)
	if err := oc.publishLocked(ctx, classroom.KindEnd, now); err != nil {
		oc.srv.logf("classserve: class %s: end without presenter: %v", oc.c.Code(), err)
	}
	if err := oc.srv.classBus.DeleteState(ctx, oc.c.Code()); err != nil {
		oc.srv.logf("classserve: class %s: drop state: %v", oc.c.Code(), err)
	}
	oc.retireLocked()
}

// globalJoinAllowed reports whether the failed joins of all addresses
// leave room for one more try; globalJoinFailed takes a token.
func (s *Hub) globalJoinAllowed() bool { return s.classes.globalJoins.Tokens() >= 1 }
func (s *Hub) globalJoinFailed()       { s.classes.globalJoins.Allow() }

// reserveClass reserves a class for a resume of class code from addr,
// unless this server owns the class already (it is counted): reserved
// says whether it took a reservation, ok whether the resume may go on.
func (s *Hub) reserveClass(addr, code string) (reserved, ok bool) {
	s.classMu.Lock()
	owned := s.owned[code] != nil
	s.classMu.Unlock()
	if owned {
		return false, true
	}
	ok = s.classes.reserve(addr)
	return ok, ok
}

// ScriptAddr is the address a step of what class code shows is charged to
// where a bound counts by address (the Lua sandbox's stops,
// backend.WithClientAddr): the presenter's, when this server owns the
// class; otherwise the class itself ("class CODE"), so that a presenter
// on another server still has one bound for all its students. A class's
// students re-run the presenter's script, so its stops were charged to
// each student's address, a bound per student (a fresh-eyes attack on
// issue 37).
func (s *Hub) ScriptAddr(code string) string {
	s.classMu.Lock()
	oc := s.owned[code]
	s.classMu.Unlock()
	if oc != nil {
		s.classes.mu.Lock()
		addr, ok := s.classes.addrOf[oc]
		s.classes.mu.Unlock()
		if ok {
			return addr
		}
	}
	return "class " + code
}
