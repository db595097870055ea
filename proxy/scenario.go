package proxy

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"lockstep/sim"
)

// Scenario is a list of faults to inject, read from a scenario file
// (docs/proxy-scenario-format.md): `lockstep proxy -scenario FILE`.
type Scenario struct {
	File   string
	Faults []ScenarioFault
}

// ScenarioFault is one fault of a scenario: what (Do), on which client or
// key, how long, and when: At after the proxy started, or right after the
// client's first acquire (After "acquire") or its connection (After
// "connect"), plus Wait.
type ScenarioFault struct {
	Do     FaultKind
	Client string
	Key    string
	For    time.Duration // pause: how long; delay: how long the delay lasts
	By     time.Duration // delay: added to each reply
	At     time.Duration
	After  string
	Wait   time.Duration
	Pos    sim.Pos
	fields map[string]sim.Pos
}

// maxScenarioBytes and maxScenarioFaults bound a scenario file.
const (
	maxScenarioBytes  = 64 << 10
	maxScenarioFaults = 100
)

var scenarioFields = map[string]bool{"do": true, "client": true, "key": true, "for": true, "by": true, "at": true, "after": true, "wait": true}

// LoadScenario reads and checks a scenario file. Every problem is a
// sim.LoadError (FILE:LINE:COL: message, with a catalogue code for the
// reader's language); they come together as sim.LoadErrors.
func LoadScenario(file string) (*Scenario, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("proxy: scenario: %w", err)
	}
	return ParseScenario(file, src)
}

// ParseScenario decodes src (only parsing; ValidateScenario checks every
// rule) and validates it.
func ParseScenario(file string, src []byte) (*Scenario, error) {
	sc, errs := decodeScenario(src)
	if sc != nil {
		errs = append(errs, validateScenario(sc)...)
		sort.SliceStable(errs, func(i, j int) bool {
			a, b := errs[i].Pos, errs[j].Pos
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
	}
	if len(errs) > 0 {
		for i := range errs {
			errs[i].File = file
		}
		return nil, errs
	}
	sc.File = file
	return sc, nil
}

func decodeScenario(src []byte) (*Scenario, sim.LoadErrors) {
	top, errs := sim.ParseYAMLMapping(src, maxScenarioBytes, "scenario file")
	if len(errs) > 0 {
		return nil, errs
	}
	sc := &Scenario{}
	for _, e := range top {
		if e.Key != "faults" {
			errs = append(errs, problem(e.KeyPos, "proxy.scenario.unknown-field", "Field", e.Key))
			continue
		}
		items, ierrs := sim.YAMLSequence(e.Value, "faults")
		errs = append(errs, ierrs...)
		for _, it := range items {
			f := ScenarioFault{Pos: sim.YAMLPos(it), fields: map[string]sim.Pos{}}
			kvs, kerrs := sim.YAMLMapping(it, "a fault")
			errs = append(errs, kerrs...)
			for _, kv := range kvs {
				if !scenarioFields[kv.Key] {
					errs = append(errs, problem(kv.KeyPos, "proxy.scenario.unknown-field", "Field", kv.Key))
					continue
				}
				s, ok := sim.YAMLScalar(kv.Value)
				if !ok {
					errs = append(errs, problem(sim.YAMLPos(kv.Value), "proxy.scenario.not-scalar", "Field", kv.Key))
					continue
				}
				f.fields[kv.Key] = sim.YAMLPos(kv.Value)
				if err := f.set(kv.Key, s); err != nil {
					errs = append(errs, problem(sim.YAMLPos(kv.Value), "proxy.scenario.bad-duration", "Field", kv.Key, "Value", s))
				}
			}
			sc.Faults = append(sc.Faults, f)
		}
	}
	return sc, errs
}

func (f *ScenarioFault) set(key, s string) error {
	var d time.Duration
	var err error
	switch key {
	case "for", "by", "at", "wait":
		if d, err = time.ParseDuration(s); err != nil {
			return err
		}
	}
	switch key {
	case "do":
		f.Do = FaultKind(s)
	case "client":
		f.Client = s
	case "key":
		f.Key = s
	case "for":
		f.For = d
	case "by":
		f.By = d
	case "at":
		f.At = d
	case "after":
		f.After = s
	case "wait":
		f.Wait = d
	}
	return nil
}

// validateScenario checks every rule of the format (one validator).
func validateScenario(sc *Scenario) sim.LoadErrors {
	var errs sim.LoadErrors
	if len(sc.Faults) == 0 {
		errs = append(errs, problem(sim.Pos{Line: 1, Col: 1}, "proxy.scenario.no-faults"))
	}
	if len(sc.Faults) > maxScenarioFaults {
		errs = append(errs, problem(sc.Faults[maxScenarioFaults].Pos, "proxy.scenario.too-many", "Max", maxScenarioFaults))
	}
	needs := map[FaultKind][]string{
		FaultPause: {"client", "for"}, FaultLoseReply: {"client"}, FaultDelay: {"client", "by", "for"},
		FaultExpire: {"key"}, FaultRestart: nil, FaultClose: {"client"},
	}
	for _, f := range sc.Faults {
		want, ok := needs[f.Do]
		if !ok {
			at := f.Pos
			if p, ok := f.fields["do"]; ok {
				at = p
			}
			errs = append(errs, problem(at, "proxy.scenario.unknown-do", "Value", string(f.Do)))
			continue
		}
		for _, field := range want {
			if _, ok := f.fields[field]; !ok {
				errs = append(errs, problem(f.Pos, "proxy.scenario.missing", "Field", field, "Do", string(f.Do)))
			}
		}
		for _, d := range []struct {
			field string
			v     time.Duration
		}{{"for", f.For}, {"by", f.By}} {
			if _, set := f.fields[d.field]; set && (d.v <= 0 || d.v > maxFaultDuration) {
				errs = append(errs, problem(f.fields[d.field], "proxy.scenario.duration-range", "Field", d.field, "Max", maxFaultDuration.String()))
			}
		}
		for _, d := range []struct {
			field string
			v     time.Duration
		}{{"at", f.At}, {"wait", f.Wait}} {
			if _, set := f.fields[d.field]; set && d.v < 0 {
				// 0 or more, with no upper bound (the duration-range
				// message said "above 0, at most 10m", which 0s and 11m
				// are not, and both are taken).
				errs = append(errs, problem(f.fields[d.field], "proxy.scenario.negative", "Field", d.field))
			}
		}
		_, hasAfter := f.fields["after"]
		_, hasAt := f.fields["at"]
		switch {
		case hasAt == hasAfter:
			errs = append(errs, problem(f.Pos, "proxy.scenario.when"))
		case hasAfter && f.After != "acquire" && f.After != "connect":
			errs = append(errs, problem(f.fields["after"], "proxy.scenario.after", "Value", f.After))
		case hasAfter && f.Client == "":
			errs = append(errs, problem(f.Pos, "proxy.scenario.missing", "Field", "client", "Do", "after"))
		}
	}
	return errs
}

func problem(at sim.Pos, id string, kv ...any) sim.LoadError {
	m := sim.M(id, kv...)
	return sim.LoadError{Pos: at, Msg: englishScenario(m), Problem: m}
}

// englishScenario is the English text of a scenario problem, for logs and
// Error (the catalogue has it in every language).
func englishScenario(m sim.Msg) string {
	var b strings.Builder
	b.WriteString(strings.TrimPrefix(m.ID, "proxy.scenario."))
	for _, k := range []string{"Field", "Value", "Do", "Max"} {
		if v, ok := m.Args[k]; ok {
			fmt.Fprintf(&b, " %s=%v", strings.ToLower(k), v)
		}
	}
	return b.String()
}

// CheckScenario reports the faults of sc that this proxy could never
// run, before any runs: a restart when the upstream is a real Redis (only
// the embedded one restarts, ErrNotEmbedded) and an expire of a key that
// -locks does not match (ErrNotLock; without -locks a key is a lock once
// the proxy suggests it, so that is known only when the fault fires). The
// problems are sim.LoadErrors at the fault's do or key, as LoadScenario's.
func (p *Proxy) CheckScenario(sc *Scenario) error {
	var errs sim.LoadErrors
	at := func(f ScenarioFault, field string) sim.Pos {
		if pos, ok := f.fields[field]; ok {
			return pos
		}
		return f.Pos
	}
	for _, f := range sc.Faults {
		switch {
		case f.Do == FaultRestart && !p.embedded():
			errs = append(errs, problem(at(f, "do"), "proxy.scenario.restart-real"))
		case f.Do == FaultExpire && len(p.locks) > 0 && !p.locks.match(f.Key):
			errs = append(errs, problem(at(f, "key"), "proxy.scenario.expire-not-lock", "Value", f.Key))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	for i := range errs {
		errs[i].File = sc.File
	}
	return errs
}

// RunScenario injects sc's faults at their times until ctx ends or every
// fault has run. A fault that cannot run (no such client) is traced as an
// EventFault with Error and the scenario goes on.
func (p *Proxy) RunScenario(ctx context.Context, sc *Scenario) {
	sub := p.trace.subscribe(4096, false) // in process: not capped like a page
	defer sub.Close()
	type armed struct {
		f     ScenarioFault
		fired bool
	}
	var waiting []*armed
	fire := func(f ScenarioFault, lane string) {
		client := f.Client
		if lane != "" {
			client = lane
		}
		time.AfterFunc(f.Wait, func() { p.inject(ctx, f, client) })
	}
	for _, f := range sc.Faults {
		if _, ok := f.fields["at"]; ok {
			f := f
			t := time.AfterFunc(time.Until(p.started.Add(f.At)), func() { p.inject(ctx, f, f.Client) })
			defer t.Stop()
			continue
		}
		waiting = append(waiting, &armed{f: f})
	}
	names := map[string]ClientInfo{} // lane -> what the client said
	holder := map[string]string{}    // lock key -> holding lane
	left := len(waiting)
	var seen uint64 // the last event handled
	handle := func(e Event) {
		if e.Seq <= seen {
			return
		}
		seen = e.Seq
		var lane, what string
		switch {
		case (e.Kind == EventConnect || e.Kind == EventClient) && e.Client != nil:
			names[e.Lane] = *e.Client
			lane, what = e.Lane, "connect"
		case e.Kind == EventLock && e.Lock != nil:
			if e.Lock.Holder != "" && holder[e.Lock.Key] != e.Lock.Holder {
				lane, what = e.Lock.Holder, "acquire"
			}
			holder[e.Lock.Key] = e.Lock.Holder
		}
		if lane == "" {
			return
		}
		info := names[lane]
		for _, a := range waiting {
			if a.fired || a.f.After != what || (a.f.Client != lane && a.f.Client != info.Name && a.f.Client != info.Addr) {
				continue
			}
			a.fired = true
			left--
			fire(a.f, lane)
		}
	}
	// What the trace holds from before the subscription (a client that
	// connected as the scenario started), then what comes.
	for _, e := range p.Snapshot().Events {
		handle(e)
	}
	for left > 0 {
		select {
		case <-ctx.Done():
			return
		case e := <-sub.C:
			if e.Kind != EventResync {
				handle(e)
			}
		}
	}
	<-ctx.Done()
}

// inject runs one scenario fault on client.
func (p *Proxy) inject(ctx context.Context, f ScenarioFault, client string) {
	var err error
	switch f.Do {
	case FaultPause:
		err = p.Pause(client, f.For)
	case FaultLoseReply:
		err = p.LoseNextReply(client)
	case FaultDelay:
		err = p.DelayReplies(client, f.By, f.For)
	case FaultExpire:
		err = p.ExpireKey(ctx, f.Key)
	case FaultRestart:
		err = p.RestartUpstream(ctx)
	case FaultClose:
		err = p.CloseClient(client)
	}
	if err != nil {
		p.trace.add(Event{Kind: EventFault, At: time.Now(), Fault: &FaultEvent{Kind: f.Do, Key: f.Key}, Error: err.Error()})
	}
}
