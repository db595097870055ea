package proxy

// Suggested returns what Snapshot's Suggested and Chosen hold, without
// the rest of a snapshot (the trace's copy): the keys the proxy takes for
// locks without -locks and why ("set-nx", "script-ttl"), and those of them
// ChooseLocks ticked (nil: every suggested key is a lock). The live page
// asks when a lock key it has not seen appears, so its list of keys to
// tick grows as the application runs.
func (p *Proxy) Suggested() (map[string]string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]string, len(p.suggest))
	for k, v := range p.suggest {
		out[k] = v
	}
	return out, p.chosenKeys()
}
