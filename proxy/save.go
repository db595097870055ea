package proxy

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"lockstep/sim"
)

// SaveOptions choose what SaveLesson writes.
type SaveOptions struct {
	// ID is the lesson's id ([a-z0-9-]+); the variant file is
	// ID.variant.yaml beside it. Default "observed".
	ID string
	// Key is the lock key the lesson follows; default the lock key the
	// most commands touched.
	Key string
	// Renderer gives the lesson's title and the notes their texts in every
	// locale (package catalog); nil writes English message ids.
	Renderer sim.Renderer
	// traceFlag is the trace size's flag as the user gives it
	// (Config.flag), named when the ring dropped events; SaveLesson sets it.
	traceFlag string
}

// Saved is a trace turned into files: a lesson (docs/lesson-format.md) and
// the variant file it names (docs/variant-format.md), made from the
// scripts the proxy saw. Missing lists what the trace showed that the
// formats cannot say, or what the trace lacks (each also a comment at the
// head of the file it concerns); the files then replay what they can, and
// say so instead of guessing.
type Saved struct {
	LessonFile  string   `json:"lesson_file"`  // ID.yaml
	Lesson      []byte   `json:"lesson"`       // its text
	VariantFile string   `json:"variant_file"` // ID.variant.yaml
	Variant     []byte   `json:"variant"`      // its text
	Missing     []string `json:"missing,omitempty"`
}

// ErrNothingToSave is returned when the trace holds no command on a lock.
var ErrNothingToSave = errors.New("proxy: the trace holds no command on a lock key, so there is no lesson to save")

var lessonIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// SaveLesson turns the proxy's trace into a lesson and a variant file.
func (p *Proxy) SaveLesson(ctx context.Context, opt SaveOptions) (Saved, error) {
	p.awaitInline(ctx)            // the commands so far are with the analyzer
	p.an.fault(ctx, Event{}, nil) // and their lock states are read
	events, dropped := p.trace.events()
	p.mu.Lock()
	scripts := make(map[string]*Script, len(p.scripts))
	for k, v := range p.scripts {
		scripts[k] = v
	}
	labels := map[string]string{}
	for _, l := range p.closedLanes {
		labels[l.Lane] = laneText(l)
	}
	p.mu.Unlock()
	for _, s := range p.openSessions() {
		labels[s.lane] = laneText(s.clientInfo())
	}
	opt.traceFlag = p.cfg.flag("trace-size")
	return save(events, dropped, scripts, labels, opt)
}

func laneText(l ClientInfo) string {
	s := l.Lane
	if l.Name != "" {
		s = l.Name + " (" + l.Lane + ")"
	}
	if l.Library != "" {
		s += ", " + l.Library
	}
	return s + ", " + l.Addr
}

// step is one lesson step before it is written.
type step struct {
	Actor           string `yaml:"actor,omitempty"`
	Do              string `yaml:"do"`
	By              string `yaml:"by,omitempty"`
	Lease           string `yaml:"lease,omitempty"`
	ReplyLost       bool   `yaml:"reply_lost,omitempty"`
	Expect          string `yaml:"expect,omitempty"`
	ExpectViolation string `yaml:"expect_violation,omitempty"`
	at              time.Time
	need            int // +1 the key must exist in the replay, -1 must not, 0 either
}

// call is a lock command of the trace with the states around it.
type call struct {
	e             Event
	before, after LockState
	kind          string // "acquire", "release", "renew", "other"
}

// save is SaveLesson over a trace.
func save(events []Event, dropped uint64, scripts map[string]*Script, labels map[string]string, opt SaveOptions) (Saved, error) {
	if opt.ID == "" {
		opt.ID = "observed"
	}
	if !lessonIDPattern.MatchString(opt.ID) {
		return Saved{}, fmt.Errorf("proxy: lesson id %q: use lower-case letters, digits and '-'", opt.ID)
	}
	key := opt.Key
	if key == "" {
		key = busiestLock(events)
	}
	if key == "" {
		return Saved{}, ErrNothingToSave
	}
	sv := Saved{LessonFile: opt.ID + ".yaml", VariantFile: opt.ID + ".variant.yaml"}
	missing := func(f string, a ...any) { sv.Missing = append(sv.Missing, fmt.Sprintf(f, a...)) }
	if dropped > 0 {
		missing("the trace ring had dropped %d older events (raise %s); the lesson starts at the oldest kept", dropped, opt.traceFlag)
	}
	// The lock states after each command, and the overlap and
	// overwritten findings, by the command that made them.
	after := map[uint64]LockState{}
	overlapAt := map[uint64]bool{}
	overwroteAt := map[uint64]bool{}
	for _, e := range events {
		if e.Kind == EventLock && e.Lock != nil && e.Lock.Key == key {
			after[e.Lock.Cause] = *e.Lock
		}
		if e.Kind == EventFinding && e.Finding.Key == key && len(e.Finding.Events) > 0 {
			switch e.Finding.Code {
			case FindingOverlap:
				overlapAt[e.Finding.Events[len(e.Finding.Events)-1]] = true
			case FindingOverwritten:
				overwroteAt[e.Finding.Events[len(e.Finding.Events)-1]] = true
			}
		}
	}
	// Lock commands in the order they were sent (a command of a client's
	// transaction as it ran at EXEC: ranAtExec), and the faults.
	ran := ranAtExec(events)
	var timeline []Event
	for _, e := range events {
		switch {
		case e.Kind == EventCommand && contains(e.Command.Locks, key):
			if e.Command.Name == "EXEC" {
				continue // its commands are saved as themselves
			}
			if isQueued(e.Command.value) {
				r, ok := ran[e.Seq]
				if !ok {
					continue // discarded, or its EXEC failed: it never ran
				}
				e.Command, e.At = r, r.Sent
			}
			timeline = append(timeline, e)
		case e.Kind == EventFault && e.Fault != nil:
			timeline = append(timeline, e)
		}
	}
	sort.SliceStable(timeline, func(i, j int) bool { return timeline[i].At.Before(timeline[j].At) })

	v := variantBuilder{key: key, scripts: scripts, missing: missing}
	actors := map[string]string{} // lane -> actor id
	var order []string
	actorOf := func(lane string) string {
		if id, ok := actors[lane]; ok {
			return id
		}
		id := actorID(len(order))
		actors[lane] = id
		order = append(order, lane)
		return id
	}
	var steps []step
	prev := LockState{Key: key, Type: "none", PTTL: -2}
	holds := map[string]int{} // lane -> hold count as the client sees it
	var lessonLease int64
	var lastBusy string
	for _, e := range timeline {
		if e.Kind == EventFault {
			f := e.Fault
			switch f.Kind {
			case FaultPause, FaultPauseEnd:
				id, ok := actors[f.Lane]
				if !ok {
					continue // a client that had not touched the lock yet
				}
				do := "pause"
				if f.Kind == FaultPauseEnd {
					do = "resume"
				}
				steps = append(steps, step{Actor: id, Do: do, at: e.At})
			case FaultExpire, FaultRestart:
				if f.Kind == FaultExpire && f.Key != key {
					continue
				}
				if f.Kind == FaultRestart {
					missing("the embedded Redis restarted empty at %s: the lesson format's restart is for lessons with nodes, so the replay makes the lock key expire there (a clock-jump) instead", e.At.Format(time.RFC3339Nano))
				}
				steps = append(steps, step{Do: "clock-jump", at: e.At, need: -2})
			case FaultDelay:
				missing("replies to %s were delayed by %d ms from %s: the lesson format has no delay; the replay keeps the times the commands were sent", labels[f.Lane], f.MS, e.At.Format(time.RFC3339Nano))
			}
			continue
		}
		if ranNothing(e.Command) {
			continue
		}
		c := call{e: e, before: prev}
		st, ok := after[e.Seq]
		if !ok {
			missing("command %d (%s by %s) has no lock state in the trace (the lock reader fell behind); later steps may differ", e.Seq, e.Command.Name, labels[e.Lane])
			continue
		}
		c.after = st
		prev = st
		if overwroteAt[e.Seq] {
			// Another client's command wrote over the hold (analyzer's
			// overwritten). The lesson format has no write to the lock
			// key beside acquire and release, so the replay ends the
			// hold there as an expiry (a clock-jump), and the writer of
			// a new owner acquires it.
			what, then := "removed", ""
			if st.Present() {
				what, then = "wrote a new owner into", " and has the writer's actor acquire it"
			}
			missing("command %d: %s %s the lock key with %s while %s held it, with lease left; the lesson format has no such write, so the replay makes the lock key expire there (a clock-jump)%s", e.Seq, labels[e.Lane], what, e.Command.Name, labels[c.before.Holder], then)
			steps = append(steps, step{Do: "clock-jump", at: e.Command.Sent, need: -2})
			lastBusy = ""
			if st.Present() {
				s := step{Actor: actorOf(e.Lane), Do: "acquire", Expect: "ACQUIRED", at: e.Command.Sent, need: -1}
				if e.Command.ReplyLost {
					s.Expect, s.ReplyLost, s.need = "TIMED_OUT", true, 0
				}
				if lease := max(st.PTTL, 0); lease > 0 {
					if lessonLease == 0 {
						lessonLease = lease
					} else if lease != lessonLease {
						s.Lease = strconv.FormatInt(lease, 10) + "ms"
					}
				}
				if !e.Command.ReplyLost {
					if holds[c.before.Holder] > 0 {
						// The earlier holder's actor still holds it in
						// the replay, as the finding says of the trace.
						s.ExpectViolation = "overlapping-holders"
					}
					holds[e.Lane]++
				}
				steps = append(steps, s)
			}
			continue
		}
		c.kind = classify(e.Command.cmd)
		if c.kind == "other" && unknownScript(e.Command.cmd) && c.before.Present() && !st.Present() {
			// A script whose body the proxy never saw ended the hold:
			// a release (v.release says the body is missing).
			c.kind = "release"
		}
		lane := e.Lane
		cmd := e.Command
		switch c.kind {
		case "acquire":
			id := actorOf(lane)
			won := st.Present() && st.Holder == lane && (!c.before.Present() || c.before.Holder != lane || ownerOf(c.before) != ownerOf(st))
			reentered := st.Present() && c.before.Present() && c.before.Holder == lane && ownerOf(c.before) == ownerOf(st) && st.Holder == lane
			out := "BUSY"
			need := 1
			switch {
			case cmd.ReplyLost:
				out = "TIMED_OUT"
				need = 0
			case won:
				out, need = "ACQUIRED", -1
				if c.before.Present() {
					need = -2 // the old hold must have gone
				}
			case reentered:
				out, need = "REENTERED", 1
			}
			if out == "BUSY" && lastBusy == id {
				continue // a client's retries while busy: one step shows them
			}
			lastBusy = ""
			if out == "BUSY" {
				lastBusy = id
			}
			lease := v.acquire(c, out)
			s := step{Actor: id, Do: "acquire", Expect: out, ReplyLost: cmd.ReplyLost, at: cmd.Sent, need: need}
			if lease > 0 {
				if lessonLease == 0 {
					lessonLease = lease
				} else if lease != lessonLease {
					s.Lease = strconv.FormatInt(lease, 10) + "ms"
				}
			}
			if overlapAt[e.Seq] {
				s.ExpectViolation = "overlapping-holders"
			}
			if out == "ACQUIRED" || out == "REENTERED" {
				holds[lane]++
			}
			steps = append(steps, s)
		case "release":
			if holds[lane] == 0 && notOwnerReply(cmd.value) && sameState(c.before, st) {
				// A client that holds nothing tidying up (redsync releases
				// its token after a busy attempt): nothing changes.
				continue
			}
			if c.before.Present() && c.before.Holder != "" && c.before.Holder != lane && !st.Present() && !notOwnerReply(cmd.value) {
				// Another connection released the hold with its owner id
				// (a pooled connection of the same process, or a token
				// passed on). The lesson format gives each actor its own
				// owner id, so the replay has the holder release it.
				missing("command %d: %s released the hold %s took, with its owner id; the lesson format gives each actor its own owner id, so the replay has the holder's actor release it", e.Seq, labels[lane], labels[c.before.Holder])
				lane = c.before.Holder
			}
			id := actorOf(lane)
			lastBusy = ""
			out := "NOT_OWNER"
			need := 0
			switch {
			case cmd.ReplyLost:
				out = "TIMED_OUT"
			case c.before.Present() && c.before.Holder == lane && !st.Present():
				out, need = "RELEASED", 1
			case st.Present() && st.Holder == lane:
				out, need = "STILL_HELD", 1
			}
			v.release(c, out, lane)
			if holds[lane] > 0 && !cmd.ReplyLost {
				holds[lane]--
			}
			steps = append(steps, step{Actor: id, Do: "release", Expect: out, ReplyLost: cmd.ReplyLost, at: cmd.Sent, need: need})
		case "renew":
			v.renewSeen = true
		}
	}
	if len(order) == 0 {
		return Saved{}, ErrNothingToSave
	}
	if lessonLease == 0 {
		lessonLease = 30000
		missing("no acquire showed its lease; the lesson's lease is 30s")
	}
	if v.renewSeen {
		missing("renewals were seen (a script that only sets the TTL); the replay does not renew, and the variant has no renew section, since the trace does not show how often the client renews")
	}
	steps = timeSteps(steps, lessonLease, missing)
	if v.rel == nil {
		missing(noReleaseNote) // said at the save too, not only in the file
	}
	sv.Variant = v.file(opt.ID)
	sv.Lesson = lessonFile(opt, key, lessonLease, order, labels, steps, sv)
	return sv, nil
}

// timeSteps puts an advance between steps for the real time between them,
// clamped so that the lock key is present or gone in the replay where the
// trace showed it (the proxy read keys a little after the command; the
// embedded Redis expires a key up to a clock tick late).
func timeSteps(in []step, leaseMS int64, missing func(string, ...any)) []step {
	var out []step
	var now, leaseEnd int64 = 0, -1 // replay time; when the current hold's lease ends (-1: no hold)
	var last time.Time
	for i, s := range in {
		if i > 0 {
			gap := s.at.Sub(last).Milliseconds()
			target := now + max(gap, 0)
			switch {
			case (s.need == -1 || s.need == -2) && leaseEnd >= 0 && target < leaseEnd:
				target = leaseEnd
			case s.need == 1 && leaseEnd >= 0 && target >= leaseEnd:
				target = max(leaseEnd-1, now)
			}
			if s.Do == "clock-jump" {
				target = now
			}
			if target > now {
				out = append(out, step{Do: "advance", By: strconv.FormatInt(target-now, 10) + "ms"})
				now = target
			}
		}
		last = s.at
		if s.Do == "clock-jump" {
			if leaseEnd > now {
				s.By = strconv.FormatInt(leaseEnd-now, 10) + "ms"
				out = append(out, step{Do: "clock-jump", By: s.By})
				// The server's clock moved; the key is gone.
			}
			leaseEnd = -1
			continue
		}
		switch s.Expect {
		case "ACQUIRED", "REENTERED":
			l := leaseMS
			if s.Lease != "" {
				l, _ = strconv.ParseInt(strings.TrimSuffix(s.Lease, "ms"), 10, 64)
			}
			leaseEnd = now + l
		case "RELEASED":
			leaseEnd = -1
		case "BUSY":
			if leaseEnd >= 0 && now >= leaseEnd {
				missing("an acquire answered BUSY after the replay's lease had ended; the replay may differ there")
			}
		}
		out = append(out, s)
	}
	return out
}

// ranAtExec are, by the Seq of their QUEUED event, the queued commands
// of clients' transactions that their EXEC ran: each as sent and answered
// with the EXEC, its reply from EXEC's array (the analyzer's view,
// analyzer.handleTx).
func ranAtExec(events []Event) map[uint64]*CommandEvent {
	out := map[uint64]*CommandEvent{}
	for _, e := range events {
		if e.Kind != EventCommand || e.Command.Name != "EXEC" {
			continue
		}
		for _, q := range e.Command.tx {
			out[q.seq] = q.ran(e.Command)
		}
	}
	return out
}

func sameState(a, b LockState) bool {
	return a.Type == b.Type && ownerOf(a) == ownerOf(b)
}

// classify says what a command on a lock key does to it.
func classify(c command) string {
	if nx, _ := c.setNX(); nx {
		return "acquire"
	}
	if c.script != nil {
		switch {
		case c.script.Release:
			return "release"
		case c.script.Acquire:
			return "acquire"
		case c.script.Renew:
			return "renew"
		}
	}
	if isRelease(c) {
		return "release"
	}
	return "other"
}

func busiestLock(events []Event) string {
	n := map[string]int{}
	best := ""
	for _, e := range events {
		if e.Kind != EventCommand {
			continue
		}
		for _, k := range e.Command.Locks {
			n[k]++
			if n[k] > n[best] || (n[k] == n[best] && k < best) {
				best = k
			}
		}
	}
	return best
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func actorID(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "A" + strconv.Itoa(i)
}

// lessonFile writes the lesson's YAML.
func lessonFile(opt SaveOptions, key string, leaseMS int64, lanes []string, labels map[string]string, steps []step, sv Saved) []byte {
	type actor struct {
		ID   string            `yaml:"id"`
		Name map[string]string `yaml:"name"`
	}
	type lesson struct {
		ID      string            `yaml:"id"`
		Title   map[string]string `yaml:"title"`
		Source  string            `yaml:"source"`
		Variant string            `yaml:"variant"`
		Lease   string            `yaml:"lease"`
		Lock    string            `yaml:"lock"`
		Actors  []actor           `yaml:"actors"`
		Steps   []step            `yaml:"steps"`
	}
	title := text(opt.Renderer, sim.M("proxy.lesson.title", "Key", key))
	l := lesson{ID: opt.ID, Title: title, Source: "lockstep proxy trace", Variant: "./" + sv.VariantFile,
		Lease: strconv.FormatInt(leaseMS, 10) + "ms", Lock: key}
	for i, lane := range lanes {
		label := labels[lane]
		if label == "" {
			label = lane
		}
		l.Actors = append(l.Actors, actor{ID: actorID(i), Name: map[string]string{"en": label}})
	}
	l.Steps = steps
	body, err := yaml.MarshalWithOptions(l, yaml.Flow(false))
	if err != nil {
		body = []byte("# " + err.Error() + "\n")
	}
	return append(header("A lesson saved by `lockstep proxy` from what it observed.", sv.Missing), body...)
}

func text(r sim.Renderer, m sim.Msg) map[string]string {
	out := map[string]string{}
	if r == nil {
		out["en"] = m.ID
		return out
	}
	for _, l := range r.Locales() {
		out[string(l)] = r.Render(l, m)
	}
	return out
}

// header is a file's head comment: what it is and what is missing.
func header(what string, missing []string) []byte {
	var b strings.Builder
	b.WriteString("# " + what + "\n")
	for _, m := range missing {
		b.WriteString("# missing: " + strings.ReplaceAll(m, "\n", " ") + "\n")
	}
	return []byte(b.String())
}
