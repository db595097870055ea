package view

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// tlColumn draws column i: a past or present column from its step's frame
// and the one before (nothing else, so a column once drawn never changes
// while the run stays the same), a future column as the step's ghost chip.
func (v *Step) tlColumn(lay tlLayout, i int) templates.TLColumn {
	c := templates.TLColumn{X: i * TimelineColumnWidth, W: TimelineColumnWidth, H: lay.height, Step: i, Current: i == v.cur, Future: i > v.cur}
	if i == 0 {
		c.Label = v.t.UI().StartColumn
	} else {
		c.Label = "#" + strconv.Itoa(i)
	}
	if i > v.cur {
		return v.ghostColumn(lay, c)
	}
	d := &columnDraw{v: v, lay: lay, i: i, x: i * TimelineColumnWidth, mid: i*TimelineColumnWidth + TimelineColumnWidth/2, f: v.frames[i]}
	if i > 0 {
		d.prev = &v.frames[i-1]
	}
	c.Time = "t=" + Seconds(v.t, d.f.TimeMS)
	if i == 0 {
		c.Title = v.t.T("BeforeFirstStep")
	} else if st := d.f.Step; st != nil {
		h, _ := v.headline(st)
		c.Title = h + " → " + string(d.f.Outcome)
	}
	for _, a := range lay.actors {
		d.actorLane(a)
	}
	if i > 0 && d.f.Step != nil {
		d.stepMarks(c.Title)
	}
	for k, lock := range lay.locks {
		d.leaseGauge(k, lock)
	}
	c.Rects = append(d.zones, d.bars...)
	c.Texts = d.texts
	c.Paths = d.paths
	return c
}

// ghostColumn is a future column: a ghost chip of what step c.Step will do.
func (v *Step) ghostColumn(lay tlLayout, c templates.TLColumn) templates.TLColumn {
	t := v.t
	x := c.Step * TimelineColumnWidth
	mid := x + TimelineColumnWidth/2
	st := v.lesson.Steps[c.Step-1]
	action := stepActionName(t, st.Do, checkOnly(v.lesson, st))
	c.Title = strings.TrimSpace(st.Actor + " " + action)
	if st.Do == sim.ActAdvance || st.Do == sim.ActClockJump {
		c.Texts = append(c.Texts, templates.TLText{X: mid, Y: lay.redisY + 18, Text: clockLabel(t, st.Do, st.By.Milliseconds()), Class: "ghost-text", Anchor: "middle"})
		return c
	}
	ly, ok := lay.laneY[st.Actor]
	if !ok {
		c.Texts = append(c.Texts, templates.TLText{X: mid, Y: lay.redisY + 18, Text: Clip(action, 15), Class: "ghost-text", Anchor: "middle"})
		return c
	}
	c.Rects = append(c.Rects, templates.TLRect{X: x + 6, Y: ly + tlChipTop, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip ghost"})
	c.Texts = append(c.Texts, templates.TLText{X: mid, Y: ly + tlChipTop + 20, Text: Clip(action, 14), Class: "ghost-text", Anchor: "middle"})
	return c
}

// columnDraw collects the shapes of one past or present column: zones are
// drawn under bars, then texts and paths.
type columnDraw struct {
	v      *Step
	lay    tlLayout
	i      int
	x, mid int // the column's left edge and middle
	f      sim.Frame
	prev   *sim.Frame // nil in column 0

	zones, bars []templates.TLRect
	texts       []templates.TLText
	paths       []templates.TLPath
}

func (d *columnDraw) rect(r templates.TLRect) { d.bars = append(d.bars, r) }
func (d *columnDraw) zone(r templates.TLRect) { d.zones = append(d.zones, r) }
func (d *columnDraw) text(t templates.TLText) { d.texts = append(d.texts, t) }
func (d *columnDraw) path(p templates.TLPath) { d.paths = append(d.paths, p) }

// actorLane draws actor a's lane: its status zone and its holds.
func (d *columnDraw) actorLane(a laneActor) {
	av, ok := actorIn(d.f, a.id)
	if !ok {
		return
	}
	pav, pok := sim.ActorView{}, false
	if d.prev != nil {
		pav, pok = actorIn(*d.prev, a.id)
	}
	d.statusZone(a, av, pav, pok)
	for k, lock := range d.lay.locks {
		d.hold(a, av, pav, pok, k, lock)
	}
}

// statusZones are the zone and label of each status that shades a lane.
var statusZones = map[string]struct{ class, mark string }{
	sim.StatusPaused:  {"paused", "‖ "},
	sim.StatusCrashed: {"crashed", "✕ "},
	sim.StatusExited:  {"exited", "■ "},
}

// statusZone shades a paused, crashed or exited actor's lane, labelled in
// the column where the status starts.
func (d *columnDraw) statusZone(a laneActor, av, pav sim.ActorView, pok bool) {
	z, ok := statusZones[av.Status]
	if !ok {
		return
	}
	ui := d.v.t.UI()
	title := ui.Exited
	switch av.Status {
	case sim.StatusPaused:
		title = ui.Paused
	case sim.StatusCrashed:
		title = ui.Crashed
	}
	ly := d.lay.laneY[a.id]
	lh := d.lay.laneH(a.id)
	d.zone(templates.TLRect{X: d.x, Y: ly, W: TimelineColumnWidth, H: lh, Class: "zone-" + z.class, Title: title})
	if !pok || pav.Status != av.Status {
		d.text(templates.TLText{X: d.x + 6, Y: ly + lh - 4, Text: z.mark + title, Class: "zone-label " + z.class})
	}
}

// hold draws what actor a believes it holds of lock (row k of its lane)
// beside whether Redis still keeps it, and the stale-owner window.
func (d *columnDraw) hold(a laneActor, av, pav sim.ActorView, pok bool, k int, lock string) {
	t := d.v.t
	ui := t.UI()
	x, mid := d.x, d.mid
	ly, lh := d.lay.laneY[a.id], d.lay.laneH(a.id)
	by := d.lay.beliefY(a.id, k)
	ty := by + tlBeliefH + 3
	if lb, ok := lostIn(d.f, a.id, lock); ok {
		d.lostBelief(lb, by)
	}
	h, has := holdOf(av, lock)
	if !has {
		return
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
		d.rect(templates.TLRect{X: x + 1, Y: by, W: TimelineColumnWidth - 2, H: tlBeliefH, Class: "belief dead", Title: title})
	case h.Count > 0 && stale:
		d.rect(templates.TLRect{X: x + 1, Y: by, W: TimelineColumnWidth - 2, H: tlBeliefH, Class: "belief stale", Title: title})
	case h.Count > 0:
		d.rect(templates.TLRect{X: x + 1, Y: by, W: TimelineColumnWidth - 2, H: tlBeliefH, Class: "belief", Title: title})
	default:
		d.rect(templates.TLRect{X: x + 3, Y: by + 1, W: TimelineColumnWidth - 6, H: tlBeliefH - 2, Class: "token-only", Title: title})
	}
	if h.Count > 0 {
		cls := "belief-text"
		if stale && av.Status != sim.StatusCrashed {
			cls += " stale"
		}
		d.text(templates.TLText{X: mid, Y: by + 11, Text: "×" + strconv.Itoa(h.Count) + mark, Class: cls, Anchor: "middle"})
	}
	if h.InRedis {
		d.rect(templates.TLRect{X: x + 1, Y: ty, W: TimelineColumnWidth - 2, H: tlTruthH, Class: "truth"})
	} else if h.Count > 0 {
		d.text(templates.TLText{X: mid, Y: ty + 7, Text: "✗", Class: "truth-miss", Anchor: "middle"})
	}
	if !stale || av.Status == sim.StatusCrashed {
		return
	}
	d.zone(templates.TLRect{X: x, Y: ly, W: TimelineColumnWidth, H: lh, Class: "zone-stale", Title: ui.StaleOwner})
	ph, phok := sim.HoldView{}, false
	if pok {
		ph, phok = holdOf(pav, lock)
	}
	if !phok || ph.Count == 0 || ph.InRedis || pav.Status == sim.StatusCrashed {
		// The label ends at its column's right and fits it: where the full
		// name does not (a phone's 15-unit text: "⚠ Stale owner" ran past
		// the column's left into the one before, cut at the lanes' window,
		// issue 38) the short one shows, the full name its title
		// (app.css, export_svg.css: .zone-short).
		d.text(templates.TLText{X: x + TimelineColumnWidth - 6, Y: ly + lh - 4, Text: "⚠ " + ui.StaleOwner, Class: "zone-label stale zone-full", Anchor: "end"})
		d.text(templates.TLText{X: x + TimelineColumnWidth - 6, Y: ly + lh - 4, Text: "⚠ " + ui.StaleOwnerShort, Title: ui.StaleOwner, Class: "zone-label stale zone-short", Anchor: "end"})
	}
}

// lostIn returns the belief of actor id in lock that frame f's step ended
// (a renewal answered LOST), and whether there is one.
func lostIn(f sim.Frame, id, lock string) (sim.LostBelief, bool) {
	for _, lb := range f.Lost {
		if lb.Actor == id && lb.Lock == lock {
			return lb, true
		}
	}
	return sim.LostBelief{}, false
}

// lostBelief draws, in the belief row at by, the end of a belief that a
// renewal's LOST ended during the column's step: the bar runs to the
// renewal and stops at a mark, "✗ lost", so that the lane shows where the
// holder learned it holds nothing (issue 33, item 4).
func (d *columnDraw) lostBelief(lb sim.LostBelief, by int) {
	t := d.v.t
	title := t.T("TLBeliefLostTitle", "Actor", lb.Actor, "Lock", lb.Lock, "Token", lb.Token, "Hold", lb.Hold)
	d.rect(templates.TLRect{X: d.x + 1, Y: by, W: tlLostW, H: tlBeliefH, Class: "belief lost", Title: title})
	d.text(templates.TLText{X: d.x + tlLostW + 4, Y: by + 11, Text: Clip("✗ "+t.T("TLBeliefLost"), 11), Class: "belief-lost", Title: title})
}

// tlLostW is how far into its column a belief a renewal ended is drawn.
const tlLostW = TimelineColumnWidth / 4

// stepMarks draws what the column's step did: its chip on its actor's lane,
// the watchdog's renewals of a clock step, or a step of no actor's (a
// failover) on the Redis lane.
func (d *columnDraw) stepMarks(title string) {
	st := d.f.Step
	if ly, ok := d.lay.laneY[st.Actor]; ok && st.Do == sim.ActLongScript {
		// The script's chip on its actor's lane; the calls of the step are
		// the renewals it held up, drawn on their holders' lanes (the
		// actor's own below its script's chip, its lane being stacked).
		own := d.renewals(st)
		d.scriptChip(ly, title, !own)
		return
	}
	if ly, ok := d.lay.laneY[st.Actor]; ok {
		d.stepChip(st, ly, title)
		return
	}
	if st.Do == sim.ActAdvance || st.Do == sim.ActClockJump {
		d.renewals(st)
		return
	}
	action := ActionName(d.v.t, st.Do)
	if st.Do == sim.ActRestart && st.Node > 0 {
		action = d.v.t.T("TLRestartNode", "Node", st.Node)
	}
	// At most 14 units (about 92 px of the column's 100 at 11 px bold), so
	// that it neither runs into the next column's reply (a node's cell,
	// "1:nil", from 4 units past the column's edge)
	// nor past the drawing's edge (a fresh review of issue 38: "⚠ restart
	// node 2", 16 units, over both): the mark goes first where the words
	// need the room; the title keeps the whole.
	label := "⚠ " + action
	if textUnits(label) > tlAdvanceUnits {
		label = action
	}
	d.text(templates.TLText{X: d.mid, Y: d.lay.redisY + 18, Text: Clip(label, tlAdvanceUnits), Class: "advance", Anchor: "middle", Title: "⚠ " + action})
}

// scriptChip is a long script's chip on its actor's lane (at ly), with a bar
// down to Redis (line) unless the actor's own renewal chip, stacked below
// it, draws that bar: the script holds Redis for the whole step.
func (d *columnDraw) scriptChip(ly int, title string, line bool) {
	t, x, mid := d.v.t, d.x, d.mid
	cy := chipY(ly, 0)
	d.rect(templates.TLRect{X: x + 6, Y: cy, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip act-" + string(sim.ActLongScript), Title: title})
	d.text(templates.TLText{X: mid, Y: cy + 13, Text: Clip(ActionName(t, sim.ActLongScript), 14), Class: "chip-action", Anchor: "middle"})
	d.text(templates.TLText{X: mid, Y: cy + 27, Text: Clip(scriptMark+" EVAL", 14), Class: "chip-outcome oc-warn", Anchor: "middle"})
	if line {
		d.path(templates.TLPath{D: fmt.Sprintf("M%d %d V%d", mid, cy+tlChipH, d.lay.redisY+4), Class: "call-line"})
	}
}

// stepChip is the step's chip on its actor's lane (at ly), its call down to
// Redis with the reply, and a fork's line to the child's lane.
func (d *columnDraw) stepChip(st *sim.StepInfo, ly int, title string) {
	t, f, x, mid, redisY := d.v.t, d.f, d.x, d.mid, d.lay.redisY
	action := stepActionName(t, st.Do, st.CheckOnly)
	if st.Do == sim.ActFork {
		action += " → " + st.Child
	}
	d.rect(templates.TLRect{X: x + 6, Y: ly + tlChipTop, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip act-" + string(st.Do), Title: title})
	d.text(templates.TLText{X: mid, Y: ly + tlChipTop + 13, Text: Clip(action, 14), Class: "chip-action", Anchor: "middle"})
	if f.Outcome != "" && f.Outcome != sim.OK {
		d.text(templates.TLText{X: mid, Y: ly + tlChipTop + 27, Text: Clip(string(f.Outcome), 14), Class: "chip-outcome oc-" + outcomeKind(f.Outcome), Anchor: "middle"})
	} else if st.Do == sim.ActCrash {
		d.text(templates.TLText{X: mid, Y: ly + tlChipTop + 27, Text: "✕", Class: "chip-outcome oc-bad", Anchor: "middle"})
	}
	if len(f.Calls) > 0 {
		d.path(templates.TLPath{D: fmt.Sprintf("M%d %d V%d", mid, ly+tlChipTop+tlChipH, redisY+4), Class: "call-line"})
		if d.v.lesson.Nodes > 0 {
			d.nodeReplies(st, redisY)
		} else {
			replies := make([]string, len(f.Calls))
			for i, c := range f.Calls {
				replies[i] = shortReply(c.Reply)
			}
			d.text(templates.TLText{X: mid, Y: redisY + 18, Text: Clip(strings.Join(replies, " · "), 15), Class: "reply oc-" + outcomeKind(f.Outcome), Anchor: "middle", Title: f.Calls[0].Reply.String()})
		}
	}
	if st.Do != sim.ActFork {
		return
	}
	if cy, ok := d.lay.laneY[st.Child]; ok {
		d.path(templates.TLPath{D: fmt.Sprintf("M%d %d C%d %d %d %d %d %d", mid, ly+tlChipTop+tlChipH, mid+30, ly+tlChipTop+tlChipH+20, mid+30, cy-10, mid+20, cy+tlChipTop+4), Class: "fork-line"})
		d.rect(templates.TLRect{X: x + 14, Y: cy + tlChipTop + 4, W: TimelineColumnWidth - 20, H: tlChipH - 8, Class: "chip forked-start"})
		d.text(templates.TLText{X: mid + 4, Y: cy + tlChipTop + 21, Text: "▶ " + t.T("ForkedChip"), Class: "chip-action", Anchor: "middle"})
	}
}

// nodeReplies draws the replies of a step of a lesson with nodes, each
// node's in a cell of its own (nodeCell: two a line, in node order), its
// number and its replies in the order they came ("2:OK", "3:nil,1"; a
// string's quotes left to the title, for room), a node the step did not
// reach "✕", each cell with its own title (issue 38: they ran together on
// one clipped line, "1:nil 2:OK 3:OK").
func (d *columnDraw) nodeReplies(st *sim.StepInfo, redisY int) {
	t, f := d.v.t, d.f
	for n := 1; n <= d.v.lesson.Nodes; n++ {
		var replies, titles []string
		for _, c := range f.Calls {
			if c.Node == n {
				replies = append(replies, strings.Trim(shortReply(c.Reply), `"`))
				titles = append(titles, t.T("TLNodeReply", "Node", n, "Reply", c.Reply.String()))
			}
		}
		class := "reply oc-" + outcomeKind(f.Outcome)
		if len(replies) == 0 {
			if !slices.Contains(st.Unreachable, n) {
				continue
			}
			replies, class = []string{"✕"}, "reply oc-bad"
			titles = []string{t.T("ChoiceUnreachable", "Node", n)}
		}
		mid, y, units := nodeCell(d.x, n)
		d.text(templates.TLText{X: mid, Y: redisY + y, Text: Clip(strconv.Itoa(n)+":"+strings.Join(replies, ","), units),
			Class: class, Anchor: "middle", Title: strings.Join(titles, "; ")})
	}
}

// renewals draws a clock step: the calls during it are watchdog renewals,
// each on the lane of the actor whose token it renews, and the step's
// label on the Redis lane. On a stacked lane, the lane of a long script's
// own actor, the renewals' chip goes in the second row, below the
// script's; renewals reports whether it drew one there.
func (d *columnDraw) renewals(st *sim.StepInfo) (own bool) {
	t, f, x, mid, redisY := d.v.t, d.f, d.x, d.mid, d.lay.redisY
	byActor := map[string][]sim.CallRecord{}
	owners := d.v.tokenOwners(f)
	if d.prev != nil {
		for tok, ids := range d.v.tokenOwners(*d.prev) {
			if len(owners[tok]) == 0 {
				owners[tok] = ids
			}
		}
	}
	for _, c := range f.Calls {
		for _, arg := range c.Args {
			if ids := owners[arg]; len(ids) > 0 {
				byActor[ids[0]] = append(byActor[ids[0]], c)
				break
			}
		}
	}
	for _, a := range d.lay.actors {
		calls := byActor[a.id]
		if len(calls) == 0 {
			continue
		}
		row := 0
		if st.Do == sim.ActLongScript && a.id == st.Actor && d.lay.stacked[a.id] {
			row, own = 1, true
		}
		cy := chipY(d.lay.laneY[a.id], row)
		lastOut := calls[len(calls)-1].Outcome
		d.rect(templates.TLRect{X: x + 6, Y: cy, W: TimelineColumnWidth - 12, H: tlChipH, Class: "chip act-renew", Title: t.T("Watchdog")})
		d.text(templates.TLText{X: mid, Y: cy + 13, Text: Clip("↻ "+t.T("Watchdog")+" ×"+strconv.Itoa(len(calls)), 15), Class: "chip-action", Anchor: "middle"})
		d.text(templates.TLText{X: mid, Y: cy + 27, Text: Clip(string(lastOut), 14), Class: "chip-outcome oc-" + outcomeKind(lastOut), Anchor: "middle"})
		d.path(templates.TLPath{D: fmt.Sprintf("M%d %d V%d", mid, cy+tlChipH, redisY+4), Class: "call-line"})
	}
	// within its column (see stepMarks): a clock jump too long for it
	// ("clock jump +25 s", 16 units) keeps its amount, a clock face (◷:
	// DejaVu has it, not ⏱, TestTimelineGlyphsHaveFont)
	// saying what it is; the title keeps the whole
	label := clockLabel(t, st.Do, st.ByMS)
	text := label
	if textUnits(text) > tlAdvanceUnits && st.Do == sim.ActClockJump {
		text = "◷ +" + Seconds(t, st.ByMS)
	}
	d.text(templates.TLText{X: mid, Y: redisY + 18, Text: Clip(text, tlAdvanceUnits), Class: "advance", Anchor: "middle", Title: label})
	return own
}

// leaseGauge draws lock's lease as Redis keeps it, row k of the Redis lane.
func (d *columnDraw) leaseGauge(k int, lock string) {
	t, f, x, mid, i := d.v.t, d.f, d.x, d.mid, d.i
	rowY := d.lay.redisY + d.lay.replyH + k*tlGaugeRw
	gy := rowY + 14
	lv, ok := lockIn(f, lock)
	if !ok {
		return
	}
	key, _ := findKey(f.Keys, lv.Key)
	var pkey sim.KeyState
	var plv sim.LockView
	if d.prev != nil {
		pkey, _ = findKey(d.prev.Keys, lv.Key)
		plv, _ = lockIn(*d.prev, lock)
	}
	if !key.Exists() {
		d.text(templates.TLText{X: mid, Y: gy + tlGaugeH - 4, Text: "—", Class: "lease-none", Anchor: "middle"})
		if i > 0 && pkey.Exists() && lv.Transition != nil && f.Step != nil && (f.Step.Do == sim.ActAdvance || f.Step.Do == sim.ActClockJump || f.Step.Do == sim.ActLongScript) {
			d.text(templates.TLText{X: mid, Y: rowY + 10, Text: "✕ " + t.T("LeaseExpired"), Class: "lease-expired", Anchor: "middle"})
		}
		return
	}
	h := max(3, tlGaugeH*int(min(key.PTTL, d.lay.scale))/int(d.lay.scale))
	cls := "lease"
	if i > 0 && pkey.Exists() && key.PTTL > pkey.PTTL {
		cls += " renewed"
	}
	d.rect(templates.TLRect{X: x + 4, Y: gy + tlGaugeH - h, W: TimelineColumnWidth - 8, H: h, Class: cls,
		Title: fmt.Sprintf("%s PTTL %d ms · %s", lv.Key, key.PTTL, lv.Owner)})
	label := Seconds(t, key.PTTL)
	if lv.Count > 0 {
		label = "×" + strconv.FormatInt(lv.Count, 10) + " · " + label
	}
	d.text(templates.TLText{X: mid, Y: gy + tlGaugeH - 4, Text: Clip(label, 15), Class: "lease-text", Anchor: "middle"})
	if i == 0 || !pkey.Exists() || plv.Owner != lv.Owner {
		d.text(templates.TLText{X: x + 6, Y: rowY + 10, Text: Clip(lv.Owner, 15), Class: "owner-text", Title: lv.Owner})
	}
}
