package web

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"lockstep/backend"
	"lockstep/drill"
	"lockstep/explore"
	"lockstep/sim"
	"lockstep/templates"
)

// view is what the panels of one moment of a run are built from. It depends
// only on the lesson, the frames up to the current step and the locale, so
// stepping back or seeking renders exactly what stepping forward did.
type view struct {
	t      *translator
	lesson *sim.Lesson
	frames []sim.Frame // frames[0..cur]
	cur    int
	info   backend.Info
	prefix string // the run's key prefix on a real Redis
	tl     timelineView
	// shared is set when frames are the lesson's canonical frames up to
	// cur, so that the step panels may come from, and go to, the
	// translator's step memo (stepcache.go).
	shared bool
}

func (v *view) frame() sim.Frame { return v.frames[v.cur] }

func (v *view) prev() *sim.Frame {
	if v.cur == 0 {
		return nil
	}
	return &v.frames[v.cur-1]
}

func (v *view) total() int { return len(v.lesson.Steps) }

// Panel names, the keys of a frame message's panels and chrome, and the
// data-panel / data-chrome attributes of the page's regions.
const (
	panelAlerts    = "alerts"
	panelNarration = "narration"
	panelDiagram   = "diagram"
	panelTimeline  = "timeline"
	panelRedis     = "redis"
	panelCommand   = "command"
	panelExplore   = "explore"
	panelTools     = "explore-tools"
	chromeHeader   = "header"
	chromeControls = "controls"
)

// panels renders every panel of the current step (see renderPanels).
func (v *view) panels(ctx context.Context) (map[string]string, error) {
	return v.renderPanels(ctx, true)
}

// renderPanels renders the panels; all of them when whole, else the panels
// a step can change: not the timeline (a step sends a patch of it instead:
// delta.go) nor the explore tools (they depend on the run and the language
// only, which only a frame with chrome changes). When two or more panels
// are to be drawn they are drawn at once, one goroutine each (the view is
// only read), so that a reply waits for its largest panel (on a load, the
// timeline) instead of the sum of all. One panel, or none (a step whose
// panels the memo holds: on a real Redis only the Redis panel is drawn),
// is drawn on the session's goroutine: handing it to another goroutine and
// waiting cost more than the drawing (a step's drawing and encoding went
// from p50 149 to 86 µs on a real Redis, 2 vCPUs; docs/performance.md).
func (v *view) renderPanels(ctx context.Context, whole bool) (map[string]string, error) {
	draw := func(c templ.Component) (string, error) { return render(ctx, c) }
	var key stepKey
	var kept map[string]string // the step panels, drawn before for a session
	share := v.sharable()
	if share {
		key = stepKey{lesson: v.lesson, info: v.info, step: v.cur}
		if p, ok := v.t.steps.Load(key); ok {
			kept = p.(map[string]string)
		}
	}
	builders := map[string]func() (string, error){}
	for _, name := range stepPanels {
		if _, ok := kept[name]; !ok || v.ownPanel(name) {
			builders[name] = func() (string, error) { return v.drawStepPanel(ctx, name) }
		}
	}
	if whole {
		builders[panelTimeline] = func() (string, error) { return draw(templates.TimelinePanel(v.timeline())) }
		builders[panelTools] = func() (string, error) { return draw(templates.ExploreToolsPanel(v.exploreTools())) }
	}
	type rendered struct {
		name, html string
		err        error
	}
	results := make(chan rendered, len(builders))
	for name, build := range builders {
		run := func() {
			html, err := build()
			if err != nil {
				err = fmt.Errorf("web: render %s: %w", name, err)
			}
			results <- rendered{name, html, err}
		}
		if len(builders) < 2 {
			run()
			continue
		}
		go run()
	}
	out := make(map[string]string, len(builders)+len(kept))
	var errs []error
	for range builders {
		r := <-results
		out[r.name] = r.html
		errs = append(errs, r.err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if share && kept == nil {
		step := make(map[string]string, len(stepPanels))
		for _, name := range stepPanels {
			if !v.ownPanel(name) {
				step[name] = out[name]
			}
		}
		v.t.steps.Store(key, step)
	}
	for name, html := range kept {
		if _, own := out[name]; !own {
			out[name] = html
		}
	}
	return out, nil
}

// drawStepPanel draws one of the stepPanels.
func (v *view) drawStepPanel(ctx context.Context, name string) (string, error) {
	switch name {
	case panelAlerts:
		return render(ctx, templates.AlertsPanel(v.alerts()))
	case panelNarration:
		return render(ctx, templates.NarrationPanel(v.narration()))
	case panelDiagram:
		return v.diagramPanel(ctx) // kept drawn per state and language
	case panelRedis:
		return render(ctx, templates.RedisPanel(v.redis()))
	case panelCommand:
		return render(ctx, templates.CommandPanel(v.command()))
	case panelExplore:
		return render(ctx, templates.ExplorePanel(v.explorePanel()))
	}
	return "", fmt.Errorf("web: %q is not a step panel", name)
}

// stepPanels are the panels a step can change (all but the timeline and the
// explore tools).
var stepPanels = []string{panelAlerts, panelNarration, panelDiagram, panelRedis, panelCommand, panelExplore}

func renderAll(ctx context.Context, comps map[string]templ.Component) (map[string]string, error) {
	out := make(map[string]string, len(comps))
	for name, c := range comps {
		html, err := render(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("web: render %s: %w", name, err)
		}
		out[name] = html
	}
	return out, nil
}

// actorLabel is how a headline names an actor: its id, which the lessons'
// narration uses too.
func actorLabel(id string) string { return id }

// seconds formats simulated milliseconds for people: "2 s", "1.5 s",
// "31 s" (in the locale's unit).
func (t *translator) seconds(ms int64) string {
	if ms >= 3600_000 {
		return t.T("Hours", "N", strconv.FormatFloat(float64(ms)/3600_000, 'f', 1, 64))
	}
	if ms%1000 == 0 {
		return t.T("Seconds", "N", strconv.FormatInt(ms/1000, 10))
	}
	if ms < 1000 && ms > -1000 {
		return t.T("Millis", "N", strconv.FormatInt(ms, 10))
	}
	return t.T("Seconds", "N", strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64))
}

func (v *view) narration() templates.NarrationView {
	t := v.t
	f := v.frame()
	n := templates.NarrationView{UI: t.UI(), Step: v.cur, Total: v.total(), Time: t.T("TimeAt", "Time", t.seconds(f.TimeMS))}
	if v.cur == 0 || f.Step == nil {
		n.StepLabel = t.T("BeforeFirstStep")
		n.Headline = t.T("HeadStart")
		n.Say = strings.TrimSpace(v.lesson.Summary.In(t.locale))
		return n
	}
	n.StepLabel = t.T("StepOfTotal", "Step", v.cur, "Total", v.total())
	n.Headline, n.Detail = v.headline(f.Step)
	if f.Step.Unreplicated {
		n.Detail = strings.TrimPrefix(n.Detail+" · "+t.T("DetailUnreplicated"), " · ")
	}
	n.Outcome = string(f.Outcome)
	n.OutcomeGloss = t.Maybe("Outcome" + string(f.Outcome))
	n.OutcomeKind = outcomeKind(f.Outcome)
	if c := f.Check; c != nil {
		want := string(c.Expect)
		if len(c.ExpectViolations) > 0 {
			if want != "" {
				want += " + "
			}
			want += strings.Join(c.ExpectViolations, ", ")
		}
		n.CheckOK = c.OK
		if c.OK {
			n.CheckText = t.T("CheckOK", "Want", want)
		} else {
			got := string(c.Got)
			if len(c.Missing) > 0 {
				got += " − " + strings.Join(c.Missing, ", ")
			}
			n.CheckText = t.T("CheckBad", "Want", want, "Got", got)
		}
	}
	n.Say = strings.TrimSpace(f.Say.In(t.locale))
	if n.Say == "" && v.cur <= len(v.lesson.Steps) {
		// A step a learner added (explore mode) has no narration of its own.
		n.Say = strings.TrimSpace(t.Msg(explore.Narrate(v.lesson, &v.lesson.Steps[v.cur-1], v.frames[v.cur-1], f)))
	}
	if v.cur == v.total() && v.tl.originURL == "" {
		// A fork's lesson takeaway is about the lesson's own ending.
		n.Takeaway = strings.TrimSpace(v.lesson.Takeaway.In(t.locale))
	}
	return n
}

// headline says what a step does, and a detail such as its lease.
func (v *view) headline(st *sim.StepInfo) (string, string) {
	t := v.t
	a := actorLabel(st.Actor)
	switch st.Do {
	case sim.ActAcquire:
		return t.T("HeadAcquire", "Actor", a, "Lock", st.Lock), t.T("DetailLease", "Lease", t.seconds(st.LeaseMS))
	case sim.ActRelease:
		if st.ReplyLost {
			return t.T("HeadRelease", "Actor", a, "Lock", st.Lock), t.T("DetailReplyLost")
		}
		return t.T("HeadRelease", "Actor", a, "Lock", st.Lock), ""
	case sim.ActFinishRelease:
		return t.T("HeadFinishRelease", "Actor", a, "Lock", st.Lock), ""
	case sim.ActExit:
		return t.T("HeadExit", "Actor", a), ""
	case sim.ActClockJump:
		return t.T("HeadClockJump", "By", t.seconds(st.ByMS)), ""
	case sim.ActFailover:
		return t.T("HeadFailover"), ""
	case sim.ActWrite:
		return t.T("HeadWrite", "Actor", a, "Lock", st.Lock, "Value", st.Value), ""
	case sim.ActPause:
		return t.T("HeadPause", "Actor", a), ""
	case sim.ActResume:
		return t.T("HeadResume", "Actor", a), ""
	case sim.ActCrash:
		return t.T("HeadCrash", "Actor", a), ""
	case sim.ActFork:
		if st.Context == "lost" {
			return t.T("HeadForkLost", "Actor", a, "Child", st.Child), ""
		}
		return t.T("HeadForkInherit", "Actor", a, "Child", st.Child), ""
	case sim.ActAdvance:
		return t.T("HeadAdvance", "By", t.seconds(st.ByMS)), ""
	}
	return string(st.Do), ""
}

// actionName is the short localized name of an action; an action this
// version does not know is shown as the lesson file names it.
func (t *translator) actionName(a sim.Action) string {
	if s := t.Maybe("Act" + camel(string(a))); s != "" {
		return s
	}
	return string(a)
}

// camel turns "finish-release" into "FinishRelease", for message ids.
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// outcomeKind classes an outcome for its color; the text always says it too.
func outcomeKind(o sim.Outcome) string {
	switch o {
	case sim.Acquired, sim.Reentered, sim.Released, sim.StillHeld, sim.Accepted, sim.Renewed:
		return "good"
	case sim.Busy, sim.NotOwner, sim.NoContext, sim.Rejected, sim.Pending:
		return "warn"
	case sim.Lost, sim.TimedOut, sim.Gone:
		return "bad"
	}
	return "neutral"
}

var invariantTitles = map[string]string{
	sim.InvOverlappingHolders: "InvOverlappingHolders",
	sim.InvStaleWrite:         "InvStaleWrite",
	sim.InvWrongOwnerRelease:  "InvWrongOwnerRelease",
	sim.InvCountMismatch:      "InvCountMismatch",
	sim.InvLeakedHold:         "InvLeakedHold",
}

// endOfRunLeak reports whether vi is a leaked hold only because the run
// ends there: every actor it names is still running or paused.
func (v *view) endOfRunLeak(vi sim.Violation) bool {
	if vi.Name != sim.InvLeakedHold {
		return false
	}
	for _, id := range vi.Actors {
		for _, a := range v.frame().Actors {
			if a.ID == id && a.Status != sim.StatusRunning && a.Status != sim.StatusPaused {
				return false
			}
		}
	}
	return true
}

func (v *view) alerts() templates.AlertsView {
	t := v.t
	f := v.frame()
	a := templates.AlertsView{UI: t.UI()}
	for _, vi := range f.Violations {
		if v.tl.on && v.cur == v.total() && v.endOfRunLeak(vi) {
			// A timeline being built has not ended: "the lesson ends while
			// Redis still keeps a hold" would greet every acquire.
			continue
		}
		title := vi.Name
		if id, ok := invariantTitles[vi.Name]; ok {
			title = t.T(id)
		}
		a.Violations = append(a.Violations, templates.AlertItem{
			Name: vi.Name, Title: title, Detail: t.Msg(vi.Detail), Lock: vi.Lock, Actors: strings.Join(vi.Actors, ", "),
		})
	}
	for _, av := range f.Actors {
		if av.Status == sim.StatusCrashed {
			continue
		}
		for _, h := range av.Holds {
			if h.Count > 0 && !h.InRedis {
				a.Stale = append(a.Stale, t.T("StaleNotice", "Actor", av.ID, "Lock", h.Lock, "Count", h.Count, "Token", h.Token))
			}
		}
	}
	return a
}

// tokenOwners maps each token or owner id to the actors that use it.
func tokenOwners(f sim.Frame) map[string][]string {
	out := map[string][]string{}
	for _, a := range f.Actors {
		for _, h := range a.Holds {
			if h.Token != "" && !slices.Contains(out[h.Token], a.ID) {
				out[h.Token] = append(out[h.Token], a.ID)
			}
		}
		if a.RequestID != "" && !slices.Contains(out[a.RequestID], a.ID) {
			out[a.RequestID] = append(out[a.RequestID], a.ID)
		}
	}
	return out
}

// maxLease is the longest lease any acquire of the lesson asks for: the
// full width of a lease bar.
func maxLease(l *sim.Lesson) int64 {
	m := l.Lease.Milliseconds()
	for _, st := range l.Steps {
		m = max(m, st.Lease.Milliseconds())
	}
	return max(m, 1)
}

func perMille(n, of int64) int {
	if n <= 0 || of <= 0 {
		return 0
	}
	return int(min(n*1000/of, 1000))
}

func findKey(keys []sim.KeyState, name string) (sim.KeyState, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return sim.Absent(name), false
}

func (v *view) redis() templates.RedisView {
	t := v.t
	ui := t.UI()
	f := v.frame()
	prev := v.prev()
	rv := templates.RedisView{UI: ui, Time: t.T("TimeAt", "Time", t.seconds(f.TimeMS))}
	switch {
	case v.prefix == "":
	case v.lesson.Replica:
		// The run fails over, so it has a primary + replica pair of its own
		// (backend.Store.Info names it after the first batch; the lesson
		// says so from the start, so every step reads the same).
		rv.Prefix = t.T("RedisPrefixPair", "Addr", v.info.Addr, "Prefix", v.prefix)
	default:
		rv.Prefix = t.T("RedisPrefix", "Prefix", v.prefix)
	}
	var prevKeys []sim.KeyState
	if prev != nil {
		prevKeys = prev.Keys
	}
	rv.Keys = v.keyViews(f, f.Keys, prevKeys, prev != nil)
	if f.Replica != nil {
		rv.PrimaryTitle = t.T("PrimaryHeading")
		rv.ReplicaTitle = t.T("ReplicaHeading")
		var prevReplica []sim.KeyState
		if prev != nil {
			prevReplica = prev.Replica
		}
		rv.Replica = v.keyViews(f, f.Replica, prevReplica, prev != nil && prev.Replica != nil)
	}
	return rv
}

// keyViews shows keys as Redis holds them, with what changed since prevKeys
// (compared only when compare is set).
func (v *view) keyViews(f sim.Frame, keys, prevKeys []sim.KeyState, compare bool) []templates.KeyView {
	t := v.t
	ui := t.UI()
	owners := tokenOwners(f)
	lockKeys := map[string]bool{}
	for _, l := range f.Locks {
		lockKeys[l.Key] = true
	}
	scale := maxLease(v.lesson)
	who := func(token string) string {
		if ids := owners[token]; len(ids) > 0 {
			return t.T("TokenOf", "Actors", strings.Join(ids, ", "))
		}
		return ""
	}
	var out []templates.KeyView
	for _, k := range keys {
		kv := templates.KeyView{Name: k.Name, Type: string(k.Type), Exists: k.Exists()}
		pk := sim.Absent(k.Name)
		if compare {
			pk, _ = findKey(prevKeys, k.Name)
		}
		switch {
		case !compare:
		case k.Exists() && !pk.Exists():
			kv.Change, kv.ChangeTx = "new", ui.KeyNew
		case !k.Exists() && pk.Exists():
			kv.Change, kv.ChangeTx = "deleted", ui.KeyDeleted
		case k.Exists() && (k.Value != pk.Value || !slices.Equal(k.Fields, pk.Fields) || k.Type != pk.Type):
			kv.Change, kv.ChangeTx = "changed", ui.KeyChanged
		}
		if !k.Exists() {
			out = append(out, kv)
			continue
		}
		for _, fl := range k.Fields {
			fv := templates.FieldView{Name: fl.Name, Value: fl.Value}
			if pk.Exists() {
				if old, ok := pk.Field(fl.Name); !ok {
					fv.New = true
				} else if old != fl.Value {
					fv.Changed, fv.Old = true, old
				}
			}
			if w := who(fl.Name); w != "" {
				fv.Who = w
			} else if w := who(fl.Value); w != "" {
				fv.Who = w
			}
			kv.Fields = append(kv.Fields, fv)
		}
		if pk.Exists() {
			for _, fl := range pk.Fields {
				if _, ok := k.Field(fl.Name); !ok {
					kv.Fields = append(kv.Fields, templates.FieldView{Name: fl.Name, Value: fl.Value, Gone: true})
				}
			}
		}
		if k.Type == sim.TypeString {
			kv.Value = k.Value
			if pk.Exists() && pk.Value != k.Value {
				kv.ValueChg, kv.ValueOld = true, pk.Value
			}
			kv.Owner = who(k.Value)
		}
		kv.PTTL = strconv.FormatInt(k.PTTL, 10) + " ms"
		kv.PTTLSec = t.seconds(k.PTTL)
		if lockKeys[k.Name] {
			kv.Bar = true
			kv.BarTo = perMille(k.PTTL, scale)
			kv.BarFrom = kv.BarTo
			if pk.Exists() {
				kv.BarFrom = perMille(pk.PTTL, scale)
				switch {
				case k.PTTL > pk.PTTL:
					kv.Renewed, kv.PTTLNote = true, ui.PTTLRenewed
				case k.PTTL < pk.PTTL:
					kv.PTTLNote = t.T("PTTLTicked", "By", t.seconds(pk.PTTL-k.PTTL))
				}
			} else if compare {
				kv.BarFrom = 0
			}
		} else {
			kv.PTTLNote = ui.Housekeeping
		}
		out = append(out, kv)
	}
	return out
}

var argDoc = regexp.MustCompile(`^--\s*(KEYS|ARGV)\[(\d+)\]\s+(.*)$`)

// scriptDocs reads a script's header comments "-- ARGV[2]  lease in ms".
// luaDoc is a script's note on one of its KEYS or ARGV in t's language: the
// scripts are teaching material and keep their English comments, and the
// message files translate each comment by its English text ("Lua: " + it).
func (t *translator) luaDoc(en string) string {
	if en == "" || t.locale == sim.English {
		return en
	}
	if s := t.Maybe("Lua: " + en); s != "" {
		return s
	}
	return en
}

func scriptDocs(src string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(src, "\n") {
		if m := argDoc.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out[m[1]+m[2]] = strings.TrimSpace(m[3])
		}
	}
	return out
}

// sourceID is the element id of a script's source; stable across steps so
// the page can keep it open.
func sourceID(script string, i int) string {
	id := "src-" + strings.NewReplacer("/", "-", " ", "-").Replace(script)
	if i > 0 {
		id += "-" + strconv.Itoa(i)
	}
	return id
}

func (v *view) command() templates.CommandView {
	t := v.t
	f := v.frame()
	c := templates.CommandView{UI: t.UI()}
	if len(f.Calls) == 0 {
		c.NoCall = t.UI().NoCall
		if f.Step != nil && (f.Step.Do == sim.ActAcquire || f.Step.Do == sim.ActRelease) && f.Outcome != sim.NoContext {
			c.NoCall = t.T("NoCallLocal")
		}
	}
	seen := map[string]int{}
	for i, call := range f.Calls {
		cv := templates.CallView{Index: i + 1, Script: call.Script, Reply: call.Reply.String(), AsBoolean: call.AsBoolean,
			Outcome: string(call.Outcome), OutcomeKnd: outcomeKind(call.Outcome)}
		cv.SourceID = sourceID(call.Script, seen[call.Script])
		seen[call.Script]++
		var docs map[string]string
		if s := sim.ScriptByName(call.Script); s != nil {
			docs = scriptDocs(s.Source)
			branch := s.BranchLines(call.Outcome)
			for n, line := range strings.Split(strings.TrimRight(s.Source, "\n"), "\n") {
				cv.Lines = append(cv.Lines, templates.SourceLine{N: n + 1, Text: line, Branch: slices.Contains(branch, n+1)})
			}
		}
		for j, k := range call.Keys {
			cv.Keys = append(cv.Keys, templates.ArgView{N: j + 1, Value: k, Doc: t.luaDoc(docs["KEYS"+strconv.Itoa(j+1)])})
		}
		for j, a := range call.Args {
			cv.Args = append(cv.Args, templates.ArgView{N: j + 1, Value: a, Doc: t.luaDoc(docs["ARGV"+strconv.Itoa(j+1)])})
		}
		c.Calls = append(c.Calls, cv)
	}
	return c
}

// focusLock is the lock the diagram shows: the step's, else the lesson's.
func (v *view) focusLock() (sim.LockView, []sim.LockView) {
	f := v.frame()
	name := v.lesson.Lock
	if f.Step != nil && f.Step.Lock != "" {
		name = f.Step.Lock
	}
	var focus sim.LockView
	var others []sim.LockView
	found := false
	for _, l := range f.Locks {
		if l.Name == name && !found {
			focus, found = l, true
			continue
		}
		others = append(others, l)
	}
	if !found && len(f.Locks) > 0 {
		focus, others = f.Locks[0], f.Locks[1:]
	}
	if !found && len(f.Locks) == 0 {
		focus = sim.LockView{Name: name, State: sim.Idle}
	}
	return focus, others
}

// header is the player's header in the view's language.
func (s *Server) header(t *translator, l *sim.Lesson, step int, presenter bool) templates.Header {
	vi, _ := sim.Variant(l.Variant)
	if _, _, ok := drill.ParseID(l.ID); ok && s.byID[l.ID] == nil {
		return s.drillHeader(t, l, step, presenter)
	}
	return templates.Header{
		UI:        t.UI(),
		CourseURL: "/?lang=" + string(t.locale),
		Number:    s.index[l.ID] + 1,
		Title:     l.Title.In(t.locale),
		Summary:   strings.TrimSpace(l.Summary.In(t.locale)),
		Variant:   l.Variant,
		LockType:  t.lockType(vi.LockType),
		Fencing:   l.Fencing,
		Source:    t.sourceParts(l.Source),
		Langs:     langOptions(t, func(loc sim.Locale) string { return lessonURL(l.ID, step, loc, presenter) }),
		Backend:   s.lessonBadge(t, l),
	}
}

// playerControls is the control bar of a lesson's player.
func (s *Server) playerControls(t *translator, l *sim.Lesson, step int, speed float64) templates.Controls {
	c := controls(t, step, len(l.Steps), speed)
	c.Backend = s.lessonBadge(t, l).Label
	return c
}

// speeds are the play speeds: the value is the play message's speed.
var speeds = []string{"0.5", "1", "2", "4"}

func controls(t *translator, step, total int, speed float64) templates.Controls {
	c := templates.Controls{UI: t.UI(), Step: step, Total: total, I: t.interview(), Glosses: predictGlosses(t)}
	for _, s := range speeds {
		f, _ := strconv.ParseFloat(s, 64)
		c.Speeds = append(c.Speeds, templates.SpeedOption{Value: s, Label: s + "×", Selected: f == speed})
	}
	return c
}

// lockType is the header's badge of the lock key's Redis type: "lock key:
// Hash".
func (t *translator) lockType(k sim.KeyType) string {
	name := string(k)
	if name != "" {
		name = strings.ToUpper(name[:1]) + name[1:]
	}
	return t.T("LockKeyType", "Type", name)
}

// lessonBadge says which Redis a lesson runs on: a lesson with a replica
// runs on a primary + replica pair of its own (backend.Store), never on the
// single Redis the server was given.
func (s *Server) lessonBadge(t *translator, l *sim.Lesson) templates.BackendBadge {
	if !l.Replica {
		return s.badge(t)
	}
	info := s.cfg.Backend.Info()
	if info.Embedded {
		return templates.BackendBadge{Embedded: true, Pair: true, Label: t.T("BackendEmbeddedPair")}
	}
	return templates.BackendBadge{Pair: true, Label: t.T("BackendOwnPair", "Addr", info.Addr)}
}

func (s *Server) badge(t *translator) templates.BackendBadge {
	info := s.cfg.Backend.Info()
	if info.Embedded {
		return templates.BackendBadge{Embedded: true, Label: t.T("BackendEmbedded")}
	}
	return templates.BackendBadge{Label: t.T("BackendReal", "Version", info.Version, "Addr", info.Addr)}
}

// langOptions is the language picker: every locale of t's catalogue, each
// named in its own words (message LanguageName).
func langOptions(t *translator, urlFor func(sim.Locale) string) []templates.LangOption {
	var out []templates.LangOption
	for _, l := range t.cat.Locales() {
		out = append(out, templates.LangOption{Code: string(l), Label: t.cat.T(l, "LanguageName"), URL: urlFor(l), Current: l == t.locale})
	}
	return out
}

// lessonURL is the deep link of a lesson step.
func lessonURL(id string, step int, l sim.Locale, presenter bool) string {
	q := url.Values{}
	if step > 0 {
		q.Set("step", strconv.Itoa(step))
	}
	q.Set("lang", string(l))
	if presenter {
		q.Set("present", "1")
	}
	return "/lessons/" + url.PathEscape(id) + "?" + q.Encode()
}
