package view

import (
	"strconv"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// Timeline geometry, in CSS pixels. The x axis is the step (simulated time
// often stands still between steps), and each column shows the state after
// its step, so column 0 is the start.
const (
	tlLabelW = 196
	// What of a lane's name and subtitle fits the label column (180 px
	// after its margin): the name is 13 px bold, about 7.5 px a unit
	// (textUnits), the subtitle 11 px, about 6.4 px.
	tlNameUnits = 24
	tlSubUnits  = 28
	// What of a lane's short name (its actor's id) fits a phone's label
	// column (app.css: 60 px at 15 px bold, "Redis").
	tlShortUnits        = 6
	TimelineColumnWidth = 100 // CSS pixels of one step's column
	tlHeaderH           = 42
	tlChipTop           = 6
	tlChipH             = 32
	tlChipGap           = 4  // between two chips stacked on one lane
	tlLockRow           = 30 // per lock in an actor lane: belief bar and truth line
	tlZoneRow           = 14 // room at the bottom of an actor lane for zone labels
	tlBeliefH           = 14
	tlTruthH            = 6
	tlReplyH            = 26 // the Redis lane's reply row, of one line
	// In a lesson with nodes the reply row has a cell for each node
	// (issue 38: "1:nil 2:OK 3:OK" ran together on one clipped line),
	// tlNodeCells cells a line across the column less tlNodeInset at
	// each side, the lines tlReplyLine apart: the largest size a reply
	// is drawn at (15 units on a phone, app.css), so that no two lines
	// touch. A cell holds what fits it at that size: mono at 15 units,
	// 0.8 units closer (app.css), is 8.2 units a character
	// (tlReplyCharW10, in tenths). The first line's baseline is
	// tlNodeBase below the lane's top (the cells keep clear of the
	// call's line, which ends at the column's middle), the row ends
	// tlNodeBelow under the last: the lanes of a Redlock lesson of three
	// actors stay on a 1280 x 800 desk's first screen.
	tlNodeCells    = 2
	tlNodeInset    = 4
	tlReplyLine    = 15
	tlReplyCharW10 = 82
	tlNodeBase     = 14
	tlNodeBelow    = 5
	tlAdvanceUnits = 14 // a step without an actor's label in the reply row (textUnits)
	tlGaugeH       = 30 // the lease gauge of one lock
	tlGaugeRw      = 50 // a lock row of the Redis lane: owner label and gauge
)

// laneActor is an actor of the lesson and where it comes from.
type laneActor struct {
	id, parent, mode string
	forkStep         int // the step that forks it; 0 for a declared actor
}

// laneActors orders the actors as lanes: declared actors in file order, each
// followed by the actors it forks (and theirs) in fork order.
func laneActors(l *sim.Lesson) []laneActor {
	children := map[string][]laneActor{}
	forked := map[string]bool{}
	for i, st := range l.Steps {
		if st.Do == sim.ActFork {
			children[st.Actor] = append(children[st.Actor], laneActor{id: st.Child, parent: st.Actor, mode: st.Context, forkStep: i + 1})
			forked[st.Child] = true
		}
	}
	var out []laneActor
	var add func(a laneActor)
	add = func(a laneActor) {
		out = append(out, a)
		for _, c := range children[a.id] {
			add(c)
		}
	}
	for _, a := range l.Actors {
		if !forked[a.ID] {
			add(laneActor{id: a.ID})
		}
	}
	return out
}

func actorIn(f sim.Frame, id string) (sim.ActorView, bool) {
	for _, a := range f.Actors {
		if a.ID == id {
			return a, true
		}
	}
	return sim.ActorView{}, false
}

func holdOf(a sim.ActorView, lock string) (sim.HoldView, bool) {
	for _, h := range a.Holds {
		if h.Lock == lock {
			return h, true
		}
	}
	return sim.HoldView{}, false
}

func lockIn(f sim.Frame, name string) (sim.LockView, bool) {
	for _, l := range f.Locks {
		if l.Name == name {
			return l, true
		}
	}
	return sim.LockView{}, false
}

// shortReply is a reply in a few characters for the timeline.
func shortReply(r sim.Reply) string {
	switch r.Kind {
	case sim.ReplyNil:
		return "nil"
	case sim.ReplyInt:
		return strconv.FormatInt(r.Int, 10)
	case sim.ReplyString:
		return strconv.Quote(r.Str)
	case sim.ReplyArray:
		parts := make([]string, len(r.Elems))
		for i, e := range r.Elems {
			if e.Kind == sim.ReplyString {
				parts[i] = e.Str
			} else {
				parts[i] = shortReply(e)
			}
		}
		return "[" + strings.Join(parts, ",") + "]"
	case sim.ReplyError:
		// Redis error replies start with their code: BUSY, NOSCRIPT, ERR.
		if code, _, _ := strings.Cut(r.Str, " "); code != "" && strings.ToUpper(code) == code {
			return code
		}
		return "ERR"
	}
	return "?"
}

// clip shortens s to at most n units (see textUnits), with an ellipsis.
func Clip(s string, n int) string {
	if textUnits(s) <= n {
		return s
	}
	units := 0
	for i, r := range s {
		units += textUnits(string(r))
		if units > n-1 {
			return s[:i] + "…"
		}
	}
	return s
}

// tlLayout is the geometry of a run's timeline: where each lane sits. It
// depends on the lesson only, never on the step shown.
type tlLayout struct {
	actors []laneActor
	locks  []string
	laneY  map[string]int
	// stacked are the actors whose lane has room for two chips, one above
	// the other: an actor that may hold the lock when it runs a long script
	// under a watchdog variant gets its script's chip and, below it, the
	// chip of its own renewals the script held up.
	stacked map[string]bool
	actorH  int // the height of a lane of one chip row; see laneH
	redisY  int
	redisH  int
	// replyH is the height of the Redis lane's reply row: one line, or in
	// a lesson with nodes the lines of its nodes' cells (nodeLines).
	replyH  int
	height  int
	width   int
	scale   int64 // the longest lease of the lesson, the gauges' full height
	total   int
	actorNm map[string]sim.Text
}

func (v *Step) tlLayout() tlLayout {
	l := v.lesson
	lay := tlLayout{actors: laneActors(l), laneY: map[string]int{}, stacked: map[string]bool{}, scale: maxLease(l), total: v.total(), actorNm: map[string]sim.Text{}}
	for _, lk := range v.frames[0].Locks {
		lay.locks = append(lay.locks, lk.Name)
	}
	for _, a := range l.Actors {
		lay.actorNm[a.ID] = a.Name
	}
	if vi, ok := sim.LessonVariant(l); ok && vi.Watchdog {
		// Only an actor that may hold the lock by then has renewals to
		// stack: one that acquired before, or a forked one (it may inherit
		// its parent's holds).
		mayHold := map[string]bool{}
		for _, st := range l.Steps {
			switch st.Do {
			case sim.ActAcquire:
				mayHold[st.Actor] = true
			case sim.ActFork:
				mayHold[st.Child] = true
			case sim.ActLongScript:
				lay.stacked[st.Actor] = lay.stacked[st.Actor] || mayHold[st.Actor]
			}
		}
	}
	lay.actorH = tlChipTop + tlChipH + 6 + len(lay.locks)*tlLockRow + tlZoneRow
	y := tlHeaderH
	for _, a := range lay.actors {
		lay.laneY[a.id] = y
		y += lay.laneH(a.id)
	}
	lay.redisY = y
	lay.replyH = tlReplyH
	if l.Nodes > 0 {
		lay.replyH = tlNodeBase + (nodeLines(l.Nodes)-1)*tlReplyLine + tlNodeBelow
	}
	lay.redisH = lay.replyH + len(lay.locks)*tlGaugeRw + 4
	lay.height = lay.redisY + lay.redisH
	lay.width = (lay.total + 1) * TimelineColumnWidth
	return lay
}

// nodeLines is how many lines the reply row of a lesson of nodes nodes
// has: tlNodeCells cells a line.
func nodeLines(nodes int) int {
	return (nodes + tlNodeCells - 1) / tlNodeCells
}

// nodeCell is where node n's replies are drawn in the reply row of the
// column whose left edge is x: the middle of its cell (x), its baseline
// (y, below the Redis lane's top) and how many units (textUnits) fit it.
func nodeCell(x, n int) (mid, y, units int) {
	w := (TimelineColumnWidth - 2*tlNodeInset) / tlNodeCells
	line, cell := (n-1)/tlNodeCells, (n-1)%tlNodeCells
	return x + tlNodeInset + cell*w + w/2, tlNodeBase + line*tlReplyLine, w * 10 / tlReplyCharW10
}

// chipsH is the height of actor id's chip rows: one chip, or two stacked.
func (lay tlLayout) chipsH(id string) int {
	if lay.stacked[id] {
		return 2*tlChipH + tlChipGap
	}
	return tlChipH
}

// laneH is the height of actor id's lane.
func (lay tlLayout) laneH(id string) int { return lay.actorH + lay.chipsH(id) - tlChipH }

// chipY is the top of chip row row (0 or 1) of the lane at ly.
func chipY(ly, row int) int { return ly + tlChipTop + row*(tlChipH+tlChipGap) }

// beliefY is the top of the belief bar of lock row k in actor id's lane.
func (lay tlLayout) beliefY(id string, k int) int {
	return lay.laneY[id] + tlChipTop + lay.chipsH(id) + 6 + k*tlLockRow
}

// Timeline is the whole timeline panel at the current step.
func (v *Step) Timeline() templates.TimelineView {
	lay := v.tlLayout()
	tv := v.timelineFrame(lay)
	for i := 0; i <= lay.total; i++ {
		tv.Columns = append(tv.Columns, v.tlColumn(lay, i))
	}
	return tv
}

// timelineFrame is the timeline without its columns: sizes, lanes and the
// legend.
func (v *Step) timelineFrame(lay tlLayout) templates.TimelineView {
	t := v.t
	ui := t.UI()
	if v.lesson.Nodes > 0 {
		// The green line is a majority's, not one Redis's.
		ui.TimelineHelp = t.T("TimelineHelpNodes")
	}
	tv := templates.TimelineView{
		UI: ui, LabelWidth: tlLabelW, ColW: TimelineColumnWidth, HeaderH: tlHeaderH,
		Width: lay.width, Height: lay.height, CurrentX: v.cur * TimelineColumnWidth,
		Lanes: v.tlLanes(lay),
	}
	tv.Legend = []templates.TLLegend{
		{Class: "belief", Text: ui.Believes},
		{Class: "truth", Text: ui.RedisSays},
		{Class: "stale", Text: ui.StaleKey},
		{Class: "token-only", Text: ui.TokenOnlyKey},
		{Class: "paused", Text: ui.PausedKey},
		{Class: "crashed", Text: ui.CrashedKey},
		{Class: "exited", Text: ui.ExitedKey},
		{Class: "watchdog", Text: t.T("Watchdog")},
		{Class: "lease", Text: ui.LeaseKey},
	}
	return tv
}

// tlLanes labels the lanes. A forked actor's lane is faint before its fork,
// and an actor's process is the one of the current step.
func (v *Step) tlLanes(lay tlLayout) []templates.TLLane {
	t := v.t
	ui := t.UI()
	last := v.frame()
	var lanes []templates.TLLane
	for _, a := range lay.actors {
		y := lay.laneY[a.id]
		lane := templates.TLLane{Y: y, H: lay.laneH(a.id), Kind: "actor", ID: a.id, Name: a.id, Short: Clip(a.id, tlShortUnits)}
		if n := strings.TrimSpace(lay.actorNm[a.id].In(t.Locale())); n != "" && n != a.id {
			lane.Name = Clip(a.id+" · "+n, tlNameUnits)
		}
		if a.parent != "" {
			// A child that runs in its parent's context need not descend
			// from it (issue 39: a pooled thread's next task, a callback a
			// library runs in another request's context): its label says
			// only whose context it has.
			lane.Sub = Clip(t.T("LaneSameContext", "Parent", a.parent), tlSubUnits)
			if a.mode == "lost" {
				lane.Sub = Clip(t.T("ForkedFrom", "Parent", a.parent, "Mode", t.T("ModeLost")), tlSubUnits)
			}
			lane.Faint = v.cur < a.forkStep
		} else if av, ok := actorIn(last, a.id); ok {
			lane.Sub = Clip(t.T("ProcessOf", "Instance", av.Instance), tlSubUnits)
		}
		for k, lock := range lay.locks {
			by := lay.beliefY(a.id, k)
			believes := ui.Believes
			if len(lay.locks) > 1 {
				believes = Clip(ui.Believes+" · "+lock, 22)
			}
			lane.Rows = append(lane.Rows,
				templates.TLRowLabel{Y: by + 11, Text: believes},
				templates.TLRowLabel{Y: by + tlBeliefH + 3 + tlTruthH + 1, Text: ui.RedisSays})
		}
		lanes = append(lanes, lane)
	}
	redis := templates.TLLane{Y: lay.redisY, H: lay.redisH, Kind: "redis", ID: "redis", Name: ui.RedisLane, Short: Clip(ui.RedisLane, tlShortUnits), Sub: t.T("BackendEmbedded")}
	switch {
	case v.lesson.Nodes > 0:
		// A lesson with nodes runs on nodes of its own.
		redis.Sub = t.T("BackendNodes", "Nodes", v.lesson.Nodes)
	case v.lesson.Replica:
		// A failover lesson runs on a primary and replica of its own
		// (backend.Store.Info names them once the first step has run).
		redis.Sub = t.T("BackendPair")
	case !v.info.Embedded:
		// Not the address: a page names no Redis address or version to
		// its visitors (issue 37, item 8; docs/security.md).
		redis.Sub = Clip(t.T("LaneRedisReal"), tlSubUnits)
	}
	for k, lock := range lay.locks {
		redis.Rows = append(redis.Rows, templates.TLRowLabel{Y: lay.redisY + lay.replyH + k*tlGaugeRw + 32, Text: Clip("lock:"+lock, 22)})
	}
	return append(lanes, redis)
}

// scriptMark marks a long script on the timeline, a clock face: U+25F7,
// which DejaVu Sans draws (the fonts `make deps` installs have no
// hourglass, U+231B or U+23F3).
const scriptMark = "◷"

// clockLabel labels a step that moves a clock: "+31 s", "clock jump
// +25 s" when only Redis's clock moves, or "◷ +25 s" (scriptMark) while a
// long script keeps Redis busy (its actor's chip names the script).
func clockLabel(t Texts, do sim.Action, ms int64) string {
	if do == sim.ActLongScript {
		return scriptMark + " +" + Seconds(t, ms)
	}
	if do == sim.ActClockJump {
		return ActionName(t, do) + " +" + Seconds(t, ms)
	}
	return "+" + Seconds(t, ms)
}
