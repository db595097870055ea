package view

import (
	"fmt"
	"strconv"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// Timeline geometry, in CSS pixels. The x axis is the step (simulated time
// often stands still between steps), and each column shows the state after
// its step, so column 0 is the start.
const (
	tlLabelW            = 196
	TimelineColumnWidth = 100 // CSS pixels of one step's column
	tlHeaderH           = 42
	tlChipTop           = 6
	tlChipH             = 32
	tlLockRow           = 30 // per lock in an actor lane: belief bar and truth line
	tlZoneRow           = 14 // room at the bottom of an actor lane for zone labels
	tlBeliefH           = 14
	tlTruthH            = 6
	tlReplyH            = 26 // the Redis lane's reply row
	tlGaugeH            = 30 // the lease gauge of one lock
	tlGaugeRw           = 50 // a lock row of the Redis lane: owner label and gauge
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
	actors  []laneActor
	locks   []string
	laneY   map[string]int
	actorH  int
	redisY  int
	redisH  int
	height  int
	width   int
	scale   int64 // the longest lease of the lesson, the gauges' full height
	total   int
	actorNm map[string]sim.Text
}

func (v *Step) tlLayout() tlLayout {
	l := v.lesson
	lay := tlLayout{actors: laneActors(l), laneY: map[string]int{}, scale: maxLease(l), total: v.total(), actorNm: map[string]sim.Text{}}
	for _, lk := range v.frames[0].Locks {
		lay.locks = append(lay.locks, lk.Name)
	}
	for _, a := range l.Actors {
		lay.actorNm[a.ID] = a.Name
	}
	lay.actorH = tlChipTop + tlChipH + 6 + len(lay.locks)*tlLockRow + tlZoneRow
	y := tlHeaderH
	for _, a := range lay.actors {
		lay.laneY[a.id] = y
		y += lay.actorH
	}
	lay.redisY = y
	lay.redisH = tlReplyH + len(lay.locks)*tlGaugeRw + 4
	lay.height = lay.redisY + lay.redisH
	lay.width = (lay.total + 1) * TimelineColumnWidth
	return lay
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
		lane := templates.TLLane{Y: y, H: lay.actorH, Kind: "actor", ID: a.id, Name: a.id}
		if n := strings.TrimSpace(lay.actorNm[a.id].In(t.Locale())); n != "" && n != a.id {
			lane.Name = Clip(a.id+" · "+n, 28)
		}
		if a.parent != "" {
			mode := t.T("ModeInherit")
			if a.mode == "lost" {
				mode = t.T("ModeLost")
			}
			lane.Sub = Clip(t.T("ForkedFrom", "Parent", a.parent, "Mode", mode), 30)
			lane.Faint = v.cur < a.forkStep
		} else if av, ok := actorIn(last, a.id); ok {
			lane.Sub = Clip(t.T("ProcessOf", "Instance", av.Instance), 30)
		}
		for k, lock := range lay.locks {
			by := y + tlChipTop + tlChipH + 6 + k*tlLockRow
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
	redis := templates.TLLane{Y: lay.redisY, H: lay.redisH, Kind: "redis", ID: "redis", Name: ui.RedisLane, Sub: t.T("BackendEmbedded")}
	switch {
	case v.lesson.Replica:
		// A failover lesson runs on a primary and replica of its own
		// (backend.Store.Info names them once the first step has run).
		redis.Sub = t.T("BackendPair")
	case !v.info.Embedded:
		redis.Sub = Clip(v.info.Addr, 30)
	}
	for k, lock := range lay.locks {
		redis.Rows = append(redis.Rows, templates.TLRowLabel{Y: lay.redisY + tlReplyH + k*tlGaugeRw + 32, Text: Clip("lock:"+lock, 22)})
	}
	return append(lanes, redis)
}

// tlColumn draws column i: a past or present column from its step's frame
// and the one before (nothing else, so a column once drawn never changes
// while the run stays the same), a future column as the step's ghost chip.
func (v *Step) tlColumn(lay tlLayout, i int) templates.TLColumn {
	t := v.t
	ui := t.UI()
	l := v.lesson
	c := templates.TLColumn{X: i * TimelineColumnWidth, W: TimelineColumnWidth, H: lay.height, Step: i, Current: i == v.cur, Future: i > v.cur}
	if i == 0 {
		c.Label = ui.StartColumn
	} else {
		c.Label = "#" + strconv.Itoa(i)
	}
	x := i * TimelineColumnWidth
	mid := x + TimelineColumnWidth/2
	redisY := lay.redisY
	if i > v.cur {
		// A ghost chip: what the step not reached yet will do.
		st := l.Steps[i-1]
		c.Title = strings.TrimSpace(st.Actor + " " + ActionName(t, st.Do))
		if st.Do == sim.ActAdvance || st.Do == sim.ActClockJump {
			c.Texts = append(c.Texts, templates.TLText{X: mid, Y: redisY + 18, Text: clockLabel(t, st.Do, st.By.Milliseconds()), Class: "ghost-text", Anchor: "middle"})
			return c
		}
		ly, ok := lay.laneY[st.Actor]
		if !ok {
			c.Texts = append(c.Texts, templates.TLText{X: mid, Y: redisY + 18, Text: Clip(ActionName(t, st.Do), 15), Class: "ghost-text", Anchor: "middle"})
			return c
		}
		c.Rects = append(c.Rects, templates.TLRect{X: x + 6, Y: ly + tlChipTop, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip ghost"})
		c.Texts = append(c.Texts, templates.TLText{X: mid, Y: ly + tlChipTop + 20, Text: Clip(ActionName(t, st.Do), 14), Class: "ghost-text", Anchor: "middle"})
		return c
	}
	f := v.frames[i]
	c.Time = "t=" + Seconds(t, f.TimeMS)
	if i == 0 {
		c.Title = t.T("BeforeFirstStep")
	} else if st := f.Step; st != nil {
		h, _ := v.headline(st)
		c.Title = h + " → " + string(f.Outcome)
	}
	var prev *sim.Frame
	if i > 0 {
		prev = &v.frames[i-1]
	}
	var zones, bars []templates.TLRect
	var texts []templates.TLText
	var paths []templates.TLPath
	actorH := lay.actorH
	for _, a := range lay.actors {
		ly := lay.laneY[a.id]
		av, ok := actorIn(f, a.id)
		if !ok {
			continue
		}
		pav, pok := sim.ActorView{}, false
		if prev != nil {
			pav, pok = actorIn(*prev, a.id)
		}
		zoneY := ly + actorH - 4
		switch av.Status {
		case sim.StatusPaused:
			zones = append(zones, templates.TLRect{X: x, Y: ly, W: TimelineColumnWidth, H: actorH, Class: "zone-paused", Title: ui.Paused})
			if !pok || pav.Status != sim.StatusPaused {
				texts = append(texts, templates.TLText{X: x + 6, Y: zoneY, Text: "‖ " + ui.Paused, Class: "zone-label paused"})
			}
		case sim.StatusCrashed:
			zones = append(zones, templates.TLRect{X: x, Y: ly, W: TimelineColumnWidth, H: actorH, Class: "zone-crashed", Title: ui.Crashed})
			if !pok || pav.Status != sim.StatusCrashed {
				texts = append(texts, templates.TLText{X: x + 6, Y: zoneY, Text: "✕ " + ui.Crashed, Class: "zone-label crashed"})
			}
		case sim.StatusExited:
			zones = append(zones, templates.TLRect{X: x, Y: ly, W: TimelineColumnWidth, H: actorH, Class: "zone-exited", Title: ui.Exited})
			if !pok || pav.Status != sim.StatusExited {
				texts = append(texts, templates.TLText{X: x + 6, Y: zoneY, Text: "■ " + ui.Exited, Class: "zone-label exited"})
			}
		}
		for k, lock := range lay.locks {
			by := ly + tlChipTop + tlChipH + 6 + k*tlLockRow
			ty := by + tlBeliefH + 3
			h, has := holdOf(av, lock)
			if !has {
				continue
			}
			stale := h.Count > 0 && !h.InRedis
			title := fmt.Sprintf("%s · %s · ×%d", a.id, h.Token, h.Count)
			mark := ""
			if h.RenewAtMS > 0 && h.Count > 0 {
				title += " · " + t.T("WatchdogNext", "Time", Seconds(t, h.RenewAtMS))
				mark = " ↻"
			}
			switch {
			case h.Count > 0 && av.Status == sim.StatusCrashed:
				bars = append(bars, templates.TLRect{X: x + 1, Y: by, W: TimelineColumnWidth - 2, H: tlBeliefH, Class: "belief dead", Title: title})
			case h.Count > 0 && stale:
				bars = append(bars, templates.TLRect{X: x + 1, Y: by, W: TimelineColumnWidth - 2, H: tlBeliefH, Class: "belief stale", Title: title})
			case h.Count > 0:
				bars = append(bars, templates.TLRect{X: x + 1, Y: by, W: TimelineColumnWidth - 2, H: tlBeliefH, Class: "belief", Title: title})
			default:
				bars = append(bars, templates.TLRect{X: x + 3, Y: by + 1, W: TimelineColumnWidth - 6, H: tlBeliefH - 2, Class: "token-only", Title: title})
			}
			if h.Count > 0 {
				cls := "belief-text"
				if stale && av.Status != sim.StatusCrashed {
					cls += " stale"
				}
				texts = append(texts, templates.TLText{X: mid, Y: by + 11, Text: "×" + strconv.Itoa(h.Count) + mark, Class: cls, Anchor: "middle"})
			}
			if h.InRedis {
				bars = append(bars, templates.TLRect{X: x + 1, Y: ty, W: TimelineColumnWidth - 2, H: tlTruthH, Class: "truth"})
			} else if h.Count > 0 {
				texts = append(texts, templates.TLText{X: mid, Y: ty + 7, Text: "✗", Class: "truth-miss", Anchor: "middle"})
			}
			if stale && av.Status != sim.StatusCrashed {
				zones = append(zones, templates.TLRect{X: x, Y: ly, W: TimelineColumnWidth, H: actorH, Class: "zone-stale", Title: ui.StaleOwner})
				ph, phok := sim.HoldView{}, false
				if pok {
					ph, phok = holdOf(pav, lock)
				}
				if !phok || ph.Count == 0 || ph.InRedis || pav.Status == sim.StatusCrashed {
					texts = append(texts, templates.TLText{X: x + TimelineColumnWidth - 6, Y: zoneY, Text: "⚠ " + ui.StaleOwner, Class: "zone-label stale", Anchor: "end"})
				}
			}
		}
	}
	if i > 0 && f.Step != nil {
		st := f.Step
		// The step's chip on its actor's lane, its call down to Redis and the reply.
		if ly, ok := lay.laneY[st.Actor]; ok {
			action := ActionName(t, st.Do)
			if st.Do == sim.ActFork {
				action += " → " + st.Child
			}
			bars = append(bars, templates.TLRect{X: x + 6, Y: ly + tlChipTop, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip act-" + string(st.Do), Title: c.Title})
			texts = append(texts, templates.TLText{X: mid, Y: ly + tlChipTop + 13, Text: Clip(action, 14), Class: "chip-action", Anchor: "middle"})
			if f.Outcome != "" && f.Outcome != sim.OK {
				texts = append(texts, templates.TLText{X: mid, Y: ly + tlChipTop + 27, Text: Clip(string(f.Outcome), 14), Class: "chip-outcome oc-" + outcomeKind(f.Outcome), Anchor: "middle"})
			} else if st.Do == sim.ActCrash {
				texts = append(texts, templates.TLText{X: mid, Y: ly + tlChipTop + 27, Text: "✕", Class: "chip-outcome oc-bad", Anchor: "middle"})
			}
			if len(f.Calls) > 0 {
				paths = append(paths, templates.TLPath{D: fmt.Sprintf("M%d %d V%d", mid, ly+tlChipTop+tlChipH, redisY+4), Class: "call-line"})
				var replies []string
				for _, c := range f.Calls {
					replies = append(replies, shortReply(c.Reply))
				}
				texts = append(texts, templates.TLText{X: mid, Y: redisY + 18, Text: Clip(strings.Join(replies, " "), 15), Class: "reply oc-" + outcomeKind(f.Outcome), Anchor: "middle", Title: f.Calls[0].Reply.String()})
			}
			if st.Do == sim.ActFork {
				if cy, ok := lay.laneY[st.Child]; ok {
					paths = append(paths, templates.TLPath{D: fmt.Sprintf("M%d %d C%d %d %d %d %d %d", mid, ly+tlChipTop+tlChipH, mid+30, ly+tlChipTop+tlChipH+20, mid+30, cy-10, mid+20, cy+tlChipTop+4), Class: "fork-line"})
					bars = append(bars, templates.TLRect{X: x + 14, Y: cy + tlChipTop + 4, W: TimelineColumnWidth - 20, H: tlChipH - 8, Class: "chip forked-start"})
					texts = append(texts, templates.TLText{X: mid + 4, Y: cy + tlChipTop + 21, Text: "▶ " + t.T("ForkedChip"), Class: "chip-action", Anchor: "middle"})
				}
			}
		} else if st.Do == sim.ActAdvance || st.Do == sim.ActClockJump {
			label := clockLabel(t, st.Do, st.ByMS)
			// Calls during a clock step are watchdog renewals: draw each on the
			// lane of the actor whose token it renews.
			renewals := map[string][]sim.CallRecord{}
			owners := tokenOwners(f)
			if prev != nil {
				for tok, ids := range tokenOwners(*prev) {
					if len(owners[tok]) == 0 {
						owners[tok] = ids
					}
				}
			}
			for _, c := range f.Calls {
				for _, arg := range c.Args {
					if ids := owners[arg]; len(ids) > 0 {
						renewals[ids[0]] = append(renewals[ids[0]], c)
						break
					}
				}
			}
			for _, a := range lay.actors {
				calls := renewals[a.id]
				if len(calls) == 0 {
					continue
				}
				ly := lay.laneY[a.id]
				lastOut := calls[len(calls)-1].Outcome
				bars = append(bars, templates.TLRect{X: x + 6, Y: ly + tlChipTop, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip act-renew", Title: t.T("Watchdog")})
				texts = append(texts,
					templates.TLText{X: mid, Y: ly + tlChipTop + 13, Text: Clip("↻ "+t.T("Watchdog")+" ×"+strconv.Itoa(len(calls)), 15), Class: "chip-action", Anchor: "middle"},
					templates.TLText{X: mid, Y: ly + tlChipTop + 27, Text: Clip(string(lastOut), 14), Class: "chip-outcome oc-" + outcomeKind(lastOut), Anchor: "middle"})
				paths = append(paths, templates.TLPath{D: fmt.Sprintf("M%d %d V%d", mid, ly+tlChipTop+tlChipH, redisY+4), Class: "call-line"})
			}
			texts = append(texts, templates.TLText{X: mid, Y: redisY + 18, Text: Clip(label, 15), Class: "advance", Anchor: "middle"})
		} else {
			// A step of no actor's, such as a failover: say it on the Redis lane.
			texts = append(texts, templates.TLText{X: mid, Y: redisY + 18, Text: Clip("⚠ "+ActionName(t, st.Do), 15), Class: "advance", Anchor: "middle"})
		}
	}
	// The Redis lane: each lock's lease as Redis keeps it.
	for k, lock := range lay.locks {
		rowY := redisY + tlReplyH + k*tlGaugeRw
		gy := rowY + 14
		lv, ok := lockIn(f, lock)
		if !ok {
			continue
		}
		key, _ := findKey(f.Keys, lv.Key)
		var pkey sim.KeyState
		var plv sim.LockView
		if prev != nil {
			pkey, _ = findKey(prev.Keys, lv.Key)
			plv, _ = lockIn(*prev, lock)
		}
		if !key.Exists() {
			texts = append(texts, templates.TLText{X: mid, Y: gy + tlGaugeH - 4, Text: "—", Class: "lease-none", Anchor: "middle"})
			if i > 0 && pkey.Exists() && lv.Transition != nil && f.Step != nil && (f.Step.Do == sim.ActAdvance || f.Step.Do == sim.ActClockJump) {
				texts = append(texts, templates.TLText{X: mid, Y: rowY + 10, Text: "✕ " + t.T("LeaseExpired"), Class: "lease-expired", Anchor: "middle"})
			}
			continue
		}
		h := max(3, tlGaugeH*int(min(key.PTTL, lay.scale))/int(lay.scale))
		cls := "lease"
		if i > 0 && pkey.Exists() && key.PTTL > pkey.PTTL {
			cls += " renewed"
		}
		bars = append(bars, templates.TLRect{X: x + 4, Y: gy + tlGaugeH - h, W: TimelineColumnWidth - 8, H: h, Class: cls,
			Title: fmt.Sprintf("%s PTTL %d ms · %s", lv.Key, key.PTTL, lv.Owner)})
		label := Seconds(t, key.PTTL)
		if lv.Count > 0 {
			label = "×" + strconv.FormatInt(lv.Count, 10) + " · " + label
		}
		texts = append(texts, templates.TLText{X: mid, Y: gy + tlGaugeH - 4, Text: Clip(label, 15), Class: "lease-text", Anchor: "middle"})
		if i == 0 || !pkey.Exists() || plv.Owner != lv.Owner {
			texts = append(texts, templates.TLText{X: x + 6, Y: rowY + 10, Text: Clip(lv.Owner, 15), Class: "owner-text", Title: lv.Owner})
		}
	}
	c.Rects = append(zones, bars...)
	c.Texts = texts
	c.Paths = paths
	return c
}

// clockLabel labels a step that moves a clock: "+31 s", or "clock jump
// +25 s" when only Redis's clock moves.
func clockLabel(t Texts, do sim.Action, ms int64) string {
	if do == sim.ActClockJump {
		return ActionName(t, do) + " +" + Seconds(t, ms)
	}
	return "+" + Seconds(t, ms)
}
