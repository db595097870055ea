package searchpage

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"lockstep/backend"
	"lockstep/explore"
	"lockstep/search"
	"lockstep/searches"
	"lockstep/sim"
	"lockstep/view"
)

// The Search page's searches over the websocket (issue 18, item 5): a
// search message starts one, in a goroutine of its own with a context the
// session cancels (search-stop, the page leaving, the server closing); its
// progress after each depth and its result come back to the session's
// goroutine, the only sender on the client's queue, through the
// runningSearch's channels. Bounds: one running search per session, at most
// Config.MaxSearches on the server, each within Config.SearchTimeout and
// Config.SearchMaxStates, on Config.SearchWorkers workers.

// Request is a search message's search: a search file's text (File),
// or a shape on a variant of the course's search files (searches/), whose
// file gives what the request leaves out (Variant is then required). The
// shape is checked by search.Validate, the validator of search files.
type Request struct {
	// File is a search file (YAML, shared/spec/search-format.md); when set
	// the other fields are ignored.
	File    string `json:"file,omitempty"`
	Variant string `json:"variant,omitempty"`
	// LeaseMS is the lease in milliseconds; 0 means the variant's file's.
	LeaseMS int64 `json:"lease_ms,omitempty"`
	// Fencing, when not null, says whether writes carry fencing tokens.
	Fencing *bool `json:"fencing,omitempty"`
	// Actors is how many actors (A, B, C…); 0 means the variant's file's.
	Actors int `json:"actors,omitempty"`
	// Depth is the most steps of a timeline; 0 means the file's.
	Depth int `json:"depth,omitempty"`
	// Moves, AdvanceMS and Invariants, when not null, replace the file's
	// (an empty list is an empty list, which the validator refuses for
	// moves and invariants; no advance means the clock never moves).
	Moves      []string `json:"moves"`
	AdvanceMS  []int64  `json:"advance_ms"`
	Invariants []string `json:"invariants"`
	// Lock, when set, is the share code of the learner's own lock (its
	// course table's link, /explore/lock?k=): the search runs on that
	// lock, on the shape of token-count's search file, and Variant is
	// ignored.
	Lock string `json:"lock,omitempty"`
}

// lockSearchBase is the course search file whose shape a search of a
// learner's own lock starts from.
const lockSearchBase = "token-count"

// lockInvariants are the invariants a search of a learner's own lock def
// asks for by default: invs (the base search file's), and, when the lock
// renews (a renew section), unnoticed-takeover, which only a renewal can
// break and which no course search file names (issue 33, item 4: a
// renewal that re-takes an expired lock is told apart from one that
// reports it lost).
func lockInvariants(def *sim.VariantDef, invs []string) []string {
	if def.Renew == nil || slices.Contains(invs, sim.InvUnnoticedTakeover) {
		return invs
	}
	if invs == nil {
		invs = sim.DefaultSearchInvariants
	}
	return append(slices.Clone(invs), sim.InvUnnoticedTakeover)
}

// maxShapeActors bounds the actors a shape builds before the validator
// refuses more than search.MaxActors: enough to name any count it is sent
// within a message's read limit honestly.
const maxShapeActors = 1000

// searchFileName is the name a search file sent by the page goes by in its
// problems and its counterexamples' ids.
const searchFileName = "search.yaml"

// ShapeFile returns the search file of req: parsed from its text, or built
// from the variant's course search file with req's fields in its place,
// then checked by search.Validate. Problems come as a bad-search protocol
// error naming their fields.
func ShapeFile(req *Request) (*search.File, error) { return shapeFileOn(req, nil) }

// shapeFileOn is ShapeFile, on the variant file def when not nil (a
// learner's own lock): the shape starts from lockSearchBase's file.
func shapeFileOn(req *Request, def *sim.VariantDef) (*search.File, error) {
	if req.File != "" {
		f, err := search.Parse(searchFileName, []byte(req.File))
		if err != nil {
			return nil, badSearch(err)
		}
		return f, nil
	}
	f := &search.File{Path: req.Variant, Variant: req.Variant}
	all, err := searches.All()
	if err != nil {
		return nil, err
	}
	baseName := req.Variant
	if def != nil {
		// As a search file names a variant file: its counterexamples name
		// it so too, and load back with def (search.counterexample).
		f.Path, f.Variant, f.VariantDef, baseName = def.Name, "./"+def.Name+sim.VariantFileSuffix, def, lockSearchBase
	}
	if base := variantSearch(all, baseName); base != nil {
		f.Lease, f.Fencing, f.Lock, f.Depth = base.Lease, base.Fencing, base.Lock, base.Depth
		f.Actors = base.Actors
		f.Moves, f.Advance, f.Invariants = base.Moves, base.Advance, base.Invariants
		if def != nil {
			f.Invariants = lockInvariants(def, f.Invariants)
		}
	}
	if req.LeaseMS != 0 {
		f.Lease = durationMS(req.LeaseMS)
	}
	if req.Fencing != nil {
		f.Fencing = *req.Fencing
	}
	if req.Actors != 0 {
		f.Actors = shapeActors(f.Actors, req.Actors)
	}
	if req.Depth != 0 {
		f.Depth = req.Depth
	}
	if req.Moves != nil {
		f.Moves = make([]search.Move, len(req.Moves))
		for i, m := range req.Moves {
			f.Moves[i] = search.Move(m)
		}
	}
	if req.AdvanceMS != nil {
		f.Advance = make([]time.Duration, len(req.AdvanceMS))
		for i, ms := range req.AdvanceMS {
			f.Advance[i] = durationMS(ms)
		}
	}
	if req.Invariants != nil {
		f.Invariants = slices.Clone(req.Invariants)
	}
	if errs := search.Validate(f); len(errs) > 0 {
		return nil, badSearch(errs)
	}
	f.Defaults()
	return f, nil
}

// durationMS is ms milliseconds, saturated where a Duration ends (the
// validator then judges the value).
func durationMS(ms int64) time.Duration {
	const most = math.MaxInt64 / int64(time.Millisecond)
	return time.Duration(max(-most, min(ms, most))) * time.Millisecond
}

// shapeActors is n actors: the first n of base, then A, B, C… (by place)
// with the last one's instance and request id, so that a variant whose
// actors share an instance (instance-owner) keeps sharing it.
func shapeActors(base []sim.ActorSpec, n int) []sim.ActorSpec {
	n = max(0, min(n, maxShapeActors))
	out := slices.Clone(base[:min(n, len(base))])
	for i := len(out); i < n; i++ {
		a := sim.ActorSpec{ID: actorName(i)}
		if len(base) > 0 {
			last := base[len(base)-1]
			a.Instance, a.RequestID = last.Instance, last.RequestID
		}
		out = append(out, a)
	}
	return out
}

// actorName is the id of the i-th actor of a shape: A..Z, then A26, A27….
func actorName(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "A" + strconv.Itoa(i)
}

// badSearch is a bad-search protocol error for a file's or a shape's
// problems (sim.LoadErrors or search.Errors inside err), naming their
// top-level fields.
func badSearch(err error) error {
	var es search.Errors
	if errors.As(err, &es) {
		err = sim.LoadErrors(es)
	}
	pe := &Error{Code: ErrCodeBadSearch, Msg: sim.M("ws.bad-search"), Cause: err}
	var les sim.LoadErrors
	if errors.As(err, &les) {
		for _, e := range les {
			field, _, _ := strings.Cut(e.Path, ".")
			field, _, _ = strings.Cut(field, "[")
			if field != "" && !slices.Contains(pe.Fields, field) {
				pe.Fields = append(pe.Fields, field)
			}
		}
	}
	return pe
}

// variantSearch is the course's search file of variant among all
// (searches.All): the one named after it, else the first for it; nil when
// there is none.
func variantSearch(all []*search.File, variant string) *search.File {
	var first *search.File
	for _, f := range all {
		if f.Variant != variant {
			continue
		}
		if search.Stem(f.Path) == variant {
			return f
		}
		if first == nil {
			first = f
		}
	}
	return first
}

// runningSearch is a session's search in progress.
type runningSearch struct {
	re     int64
	file   *search.File
	cancel context.CancelFunc
	// why is set by the session before it cancels: "stop" (the page asked).
	why string
	// shared: another address's search took its slot (fair.go).
	shared atomic.Bool
	// progress carries the progress after each depth (dropped when the
	// session lags: the next one says more); result the one result.
	progress chan ProgressMessage
	result   chan searchOutcome
	done     chan struct{} // closed when the search's goroutine ends
}

// searchOutcome is what a search's goroutine hands the session at its end.
type searchOutcome struct {
	res     *search.Result
	err     error
	elapsed time.Duration
}

// ProgressMessage reports a running search after each depth.
type ProgressMessage struct {
	Type        string `json:"type"` // "search-progress"
	Re          int64  `json:"re,omitempty"`
	Depth       int    `json:"depth"`     // every timeline of up to Depth steps is tried
	MaxDepth    int    `json:"max_depth"` // the search's depth
	States      int    `json:"states"`
	Transitions int    `json:"transitions"`
	Broken      int    `json:"broken"` // invariants broken so far
	ElapsedMS   int64  `json:"elapsed_ms"`
	// StatesPerS is States over the time since the start, timed by the
	// server (package search reads no clock).
	StatesPerS float64 `json:"states_per_s"`
}

// ResultMessage ends a search: per invariant asked, its shortest
// breaking timeline or none within the depth reached.
type ResultMessage struct {
	Type string `json:"type"` // "search-result"
	Re   int64  `json:"re,omitempty"`
	// Complete is true when every timeline up to MaxDepth was tried.
	Complete bool `json:"complete"`
	// Stopped says why an incomplete search ended: "stop" (the page's
	// Stop), "time" (Config.Timeout), "states" (Config.MaxStates),
	// "memory" (Config.MaxBytes), "shared" (its slot went to another
	// address, fair.go), "budget" (the address's time in the Lua sandbox,
	// -sandbox-time-per-addr, or a real Redis's, -script-time-per-addr,
	// ran out: backend.ScriptTimeError) or "" (complete, or every
	// invariant broken).
	Stopped     string  `json:"stopped,omitempty"`
	Depth       int     `json:"depth"` // the deepest depth fully tried
	MaxDepth    int     `json:"max_depth"`
	States      int     `json:"states"`
	Transitions int     `json:"transitions"`
	ScriptCalls int64   `json:"script_calls"`
	ElapsedMS   int64   `json:"elapsed_ms"`
	StatesPerS  float64 `json:"states_per_s"`
	// Summary is the result in one sentence, in the session's language.
	Summary string `json:"summary"`
	Rows    []Row  `json:"rows"`
}

// Row is one invariant of a search's result.
type Row struct {
	Invariant string `json:"invariant"`
	Broken    bool   `json:"broken"`
	// Steps is the breaking timeline's length (0 when not broken).
	Steps int `json:"steps,omitempty"`
	// Verdict is "broken in N steps" or "none within depth D", Timeline
	// the breaking steps in one line, in the session's language.
	Verdict  string `json:"verdict"`
	Timeline string `json:"timeline,omitempty"`
	// URL opens the timeline in the player on its breaking step (a share
	// link: it forks, exports and shares); "" when not broken.
	URL string `json:"url,omitempty"`
}

// startSearch starts the search of message m, unless one runs already in
// this session or on Config.MaxSearches sessions.
func (s *Seat) startSearch(m Message) {
	if m.Lang != "" {
		s.p.SetLocale(sim.Locale(m.Lang))
	}
	if s.search != nil {
		s.p.SendErr(m.ID, perr(ErrCodeSearchRunning, "search-running"))
		return
	}
	if err := checkSearchLists(m.Search); err != nil {
		s.p.SendErr(m.ID, err)
		return
	}
	var def *sim.VariantDef
	if m.Search != nil && m.Search.Lock != "" && m.Search.File == "" {
		d, _, err := s.srv.host.DecodeLock(m.Search.Lock)
		if err != nil {
			s.p.SendErr(m.ID, &Error{Code: ErrCodeBadSearch, Cause: err})
			return
		}
		def = d
	}
	f, err := shapeFileOn(m.Search, def)
	if err != nil {
		s.p.SendErr(m.ID, err)
		return
	}
	srv := s.srv
	// The Lua sandbox counts the stops a learner's lock causes by address,
	// and charges the address the time its steps take there
	// (-sandbox-time-per-addr), a search's as any other; past the budget
	// the search fails with the refusal, named, and when to try again.
	ctx, cancel := context.WithTimeout(backend.WithClientAddr(srv.ctx, s.p.Addr()), srv.cfg.Timeout)
	rs := &runningSearch{re: m.ID, file: f, cancel: cancel,
		progress: make(chan ProgressMessage, 8), result: make(chan searchOutcome, 1), done: make(chan struct{})}
	hold := srv.shares.take(s.p.Addr(), func() { rs.shared.Store(true); cancel() }) // fair.go
	if hold == nil {
		cancel()
		s.p.SendErr(m.ID, perr(ErrCodeSearchFull, "search-full", "Max", srv.cfg.Max))
		return
	}
	s.search = rs
	go func() {
		defer close(rs.done)
		defer srv.shares.release(hold)
		defer cancel()
		start := time.Now()
		cfg := search.Config{Backend: srv.searchBackendFor(f), Workers: srv.cfg.Workers, MaxStates: srv.cfg.MaxStates, MaxBytes: srv.cfg.MaxBytes,
			StopOn: func(err error) bool { var te *backend.ScriptTimeError; return errors.As(err, &te) },
			Progress: func(p search.Progress) {
				el := time.Since(start)
				msg := ProgressMessage{Type: MsgSearchProgress, Re: rs.re, Depth: p.Depth, MaxDepth: f.Depth, States: p.States,
					Transitions: p.Transitions, Broken: p.Broken, ElapsedMS: el.Milliseconds(), StatesPerS: perSecond(p.States, el)}
				select {
				case rs.progress <- msg:
				default:
				}
			}}
		res, err := search.Run(ctx, f, cfg)
		rs.result <- searchOutcome{res: res, err: err, elapsed: time.Since(start)}
	}()
}

// perSecond is n over d, per second (0 for no time).
func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return math.Round(float64(n)/d.Seconds()*10) / 10
}

// stopSearch asks the running search to stop; its result (what it found
// so far) follows.
func (s *Seat) stopSearch(re int64) {
	if s.search == nil {
		s.p.SendErr(re, perr(ErrCodeNoSearch, "no-search"))
		return
	}
	s.search.why = "stop"
	s.search.cancel()
}

// endSearch cancels the session's search and waits for its goroutine (the
// session is ending: the page left).
func (s *Seat) endSearch() {
	if s.search != nil {
		s.search.cancel()
		<-s.search.done
		s.search = nil
	}
}

// searchProgress and searchResult are the channels of the running search,
// nil (never ready) when none runs.
func (s *Seat) searchProgress() <-chan ProgressMessage {
	if s.search == nil {
		return nil
	}
	return s.search.progress
}

func (s *Seat) searchResult() <-chan searchOutcome {
	if s.search == nil {
		return nil
	}
	return s.search.result
}

// finishSearch sends the result of the session's search, which has ended.
func (s *Seat) finishSearch(out searchOutcome) {
	rs := s.search
	s.search = nil
	<-rs.done
	// Progress sent before the result goes first.
	for len(rs.progress) > 0 {
		s.p.Send(<-rs.progress)
	}
	if out.res == nil {
		s.p.SendErr(rs.re, perr(errCodeInternal, "search-failed", "Reason", s.srv.host.Texts(s.p.Locale()).Err(out.err)))
		return
	}
	s.p.Send(s.srv.searchResult(s.srv.host.Texts(s.p.Locale()), rs, out))
}

// searchResult is the result message of a search that ended with out.
func (srv *Searches) searchResult(t Texts, rs *runningSearch, out searchOutcome) ResultMessage {
	res, f := out.res, rs.file
	msg := ResultMessage{Type: MsgSearchResult, Re: rs.re, Complete: res.Complete, Depth: res.Reached, MaxDepth: f.Depth,
		States: res.States, Transitions: res.Transitions, ScriptCalls: res.ScriptCalls,
		ElapsedMS: out.elapsed.Milliseconds(), StatesPerS: perSecond(res.States, out.elapsed)}
	summary, reason := "SearchDone", ""
	switch res.End {
	case search.EndAllBroken:
		summary = "SearchAllBroken"
	case search.EndMaxStates:
		msg.Stopped, summary = "states", "SearchStoppedStates"
	case search.EndMaxBytes:
		msg.Stopped, summary = "memory", "SearchStoppedMemory"
	case search.EndStopped:
		// The search's context ended: the Stop button, or the time cap.
		msg.Stopped, summary = "stop", "SearchStoppedStop"
		if rs.why != "stop" && errors.Is(out.err, context.DeadlineExceeded) {
			msg.Stopped, summary = "time", "SearchStoppedTime"
		}
		if rs.why != "stop" && rs.shared.Load() {
			msg.Stopped, summary = "shared", "SearchStoppedShared"
		}
		if te := (*backend.ScriptTimeError)(nil); errors.As(out.err, &te) {
			msg.Stopped, summary, reason = "budget", "SearchStoppedBudget", t.Err(te)
		}
	}
	msg.Summary = t.T(summary, "Depth", res.Reached, "MaxDepth", f.Depth, "States", res.States, "Transitions", res.Transitions,
		"Seconds", math.Round(out.elapsed.Seconds()*10)/10, "Timeout", srv.cfg.Timeout.String(), "MaxStates", srv.cfg.MaxStates,
		"MaxMiB", maxMiB(srv.cfg.MaxBytes), "Broken", len(res.Found), "Asked", len(f.Invariants), "Reason", reason)
	for _, inv := range f.Invariants {
		row := Row{Invariant: inv}
		cx := res.Found[inv]
		switch {
		case cx != nil:
			row.Broken, row.Steps = true, cx.Steps()
			row.Verdict = t.T("SearchBrokenIn", "Steps", cx.Steps())
			row.Timeline = Timeline(t, cx)
			code, err := explore.Encode(cx.Lesson, explore.Origin{Search: search.Stem(f.Path)}, srv.host.LessonRules())
			if err != nil {
				row.Timeline += " (" + t.Err(err) + ")"
			} else {
				row.URL = srv.host.ExploreURL(code, cx.Steps(), t.Locale())
			}
		case res.Complete:
			row.Verdict = t.T("SearchNoneWithin", "Depth", f.Depth)
		default:
			row.Verdict = t.T("SearchNoneReached", "Depth", res.Reached)
		}
		msg.Rows = append(msg.Rows, row)
	}
	return msg
}

// Timeline is a counterexample's steps in one line: "A acquire → B
// acquire → advance 31 s", each action and duration in t's language (an
// advance as the What-if menu names it).
func Timeline(t Texts, cx *search.Counterexample) string {
	parts := make([]string, len(cx.Lesson.Steps))
	for i, st := range cx.Lesson.Steps {
		if st.Do == sim.ActAdvance {
			parts[i] = t.T("ChoiceAdvance", "By", view.Seconds(t, st.By.Milliseconds()))
		} else {
			parts[i] = st.Actor + " " + view.ActionName(t, st.Do)
		}
	}
	return strings.Join(parts, " → ")
}

// searchBackendFor is where search f runs: Config.Backend, or
// Config.Custom when f runs a learner's scripts.
func (s *Searches) searchBackendFor(f *search.File) *search.Backend {
	if f.VariantDef != nil && !f.VariantDef.Builtin && s.cfg.Custom != nil {
		return s.cfg.Custom
	}
	return s.cfg.Backend
}

// maxMiB is a search's byte budget in MiB, as its Stopped summary names it.
func maxMiB(b int64) int64 {
	if b == 0 {
		b = search.DefaultMaxBytes
	}
	return b >> 20
}
