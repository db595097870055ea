package proxy

import (
	"errors"
	"fmt"
	"sort"
)

// ErrLocksFixed is returned by ChooseLocks when -locks named the lock keys:
// the set then comes from the flag, not from the page.
var ErrLocksFixed = errors.New("proxy: the lock keys were given by -locks; restart without it to tick them on the page")

// ErrNotSuggested is wrapped by ChooseLocks' error for a key the proxy never
// suggested: only keys seen written as locks can be ticked.
var ErrNotSuggested = errors.New("proxy: not a suggested lock key")

// ChooseLocks sets, at run time, which of the suggested keys (Snapshot's
// Suggested) are locks: the user ticked them on the live page. Without
// -locks every suggested key is a lock until ChooseLocks is called; an
// empty keys goes back to that. From then on only the chosen keys are
// read, analysed and shown with their contents; others keep their values
// redacted like any key that is not a lock. It returns ErrLocksFixed when
// -locks was given and an error wrapping ErrNotSuggested for a key that
// was never suggested (at most maxSuggestions keys).
func (p *Proxy) ChooseLocks(keys []string) error {
	if len(p.locks) > 0 {
		return ErrLocksFixed
	}
	if len(keys) > maxSuggestions {
		return fmt.Errorf("proxy: %d keys chosen, at most %d", len(keys), maxSuggestions)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(keys) == 0 {
		p.chosen = nil
		p.refreshLockSet()
		return nil
	}
	chosen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if _, ok := p.suggest[k]; !ok {
			return fmt.Errorf("%w: %q", ErrNotSuggested, k)
		}
		chosen[k] = true
	}
	p.chosen = chosen
	p.refreshLockSet()
	return nil
}

// chosenKeys returns the keys ChooseLocks set, sorted (nil: every
// suggested key is a lock); called with p.mu held.
func (p *Proxy) chosenKeys() []string {
	if p.chosen == nil {
		return nil
	}
	out := make([]string, 0, len(p.chosen))
	for k := range p.chosen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
