package sim

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// SequenceDiagram returns a run of lesson l as Mermaid sequenceDiagram text,
// with the words it adds and the lesson's texts in locale loc (English for
// a locale it does not know). frames are the runner's frames: frames[0] is
// the state before any step and frames[i] the state after step i; they may
// stop before the lesson's last step.
//
// The diagram has a title (the lesson's), a participant per actor in lane
// order with its display name, then Redis and, when the lesson has a write
// step, the protected resource; a forked actor is created (create
// participant) at its fork. Every Redis call of a step is an arrow from the
// actor to Redis (writes go to the resource) with the script, its keys and
// arguments, and a dashed reply arrow with the raw reply and the outcome (a
// reply the client never got ends in a cross). Renewals that a watchdog makes
// during an advance come from the actor whose watchdog runs; renewals alike
// in a row are drawn once, marked ×k. Pause, resume, crash, exit, a call-less
// outcome, advance, clock-jump and failover are notes; a long script is an
// arrow from its actor to Redis, and the renewals it held up come from the
// actors whose watchdogs made them. A lock key that an advance, a
// clock-jump or a long script expired (or a failover lost) is a note, and so
// is every
// violation when it is first reported (a violation that persists is not
// repeated at every later step). Lines for step i start with "i.".
//
// Text is escaped for Mermaid with its entity codes ('#' as #35;, ';' as
// #59;, '<' and '>' as #60; and #62;) and line breaks become <br/>. Actor ids
// that Mermaid could misread (a '-', or a leading keyword such as "end" or
// "note") get a generated id; the display name keeps the actor's. The output
// is deterministic.
//
// The words it adds are messages "mermaid.*" of the catalogue, rendered by r
// in locale loc.
func SequenceDiagram(l *Lesson, frames []Frame, loc Locale, r Renderer) string {
	d := &seqDiagram{r: r, loc: loc, ids: map[string]string{}, used: map[string]bool{}}
	d.line("sequenceDiagram")
	title := ""
	if l != nil {
		title = l.Title.In(loc)
		if strings.TrimSpace(title) == "" {
			title = l.ID
		}
	}
	if strings.TrimSpace(title) != "" {
		d.line("    title " + mermaidText(title))
	}

	// Participant ids: every actor of the lesson (declared, then fork
	// children) and of the run, then Redis and the resource. The lesson
	// comes first, so that a prefix of the run gets the ids the whole run
	// gets.
	var actorOrder []string
	addActor := func(id string) {
		if id != "" && !slices.Contains(actorOrder, id) {
			actorOrder = append(actorOrder, id)
		}
	}
	if l != nil {
		for _, a := range l.Actors {
			addActor(a.ID)
		}
		for _, st := range l.Steps {
			if st.Do == ActFork {
				addActor(st.Child)
			}
		}
	}
	for _, f := range frames {
		for _, a := range f.Actors {
			addActor(a.ID)
		}
	}
	for _, id := range actorOrder {
		d.ids[id] = d.assign(id, "P")
	}
	d.redis = d.assign("R", "Redis")
	hasWrite := false
	if l != nil {
		hasWrite = slices.ContainsFunc(l.Steps, func(s Step) bool { return s.Do == ActWrite || s.Do == ActFinishWrite })
	}
	for _, f := range frames {
		hasWrite = hasWrite || f.Step != nil && (f.Step.Do == ActWrite || f.Step.Do == ActFinishWrite)
	}
	if hasWrite {
		d.resource = d.assign("W", "Resource")
	}

	if len(frames) > 0 {
		for _, a := range frames[0].Actors {
			d.participant("", a)
		}
	}
	d.line("    participant " + d.redis + " as Redis")
	if hasWrite {
		d.line("    participant " + d.resource + " as " + mermaidText(d.t("resource")))
	}
	if len(frames) > 0 {
		d.first = d.firstLane(frames[0])
	}

	for i := 1; i < len(frames); i++ {
		d.step(frames[i-1], frames[i])
	}
	return d.b.String()
}

// seqDiagram builds one sequence diagram.
type seqDiagram struct {
	b               strings.Builder
	r               Renderer
	loc             Locale
	ids             map[string]string // actor id -> Mermaid participant id
	used            map[string]bool
	redis, resource string
	first           string   // leftmost participant, for notes spanning the lanes
	lanes           []string // Mermaid ids of the actors in lane order
}

// t renders the diagram's word "mermaid."+id in the diagram's locale.
func (d *seqDiagram) t(id string, kv ...any) string {
	return d.r.Render(d.loc, M("mermaid."+id, kv...))
}

func (d *seqDiagram) line(s string) {
	d.b.WriteString(s)
	d.b.WriteByte('\n')
}

// mermaidKeywords are the words Mermaid's sequence lexer reads at the start
// of a token before it reads a participant id (case-insensitively, with no
// word boundary), so no participant id may begin with one.
var mermaidKeywords = []string{
	"accdescr", "acctitle", "activate", "actor", "alt", "and", "autonumber", "box", "break", "create", "critical",
	"deactivate", "destroy", "details", "else", "end", "left of", "link", "loop", "note", "off", "opt", "option",
	"over", "par", "participant", "properties", "rect", "right of", "sequencediagram", "title",
}

var mermaidIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// assign returns a Mermaid participant id for want that is unused and safe,
// or else one made from base.
func (d *seqDiagram) assign(want, base string) string {
	safe := mermaidIDPattern.MatchString(want) && !d.used[want]
	for _, kw := range mermaidKeywords {
		safe = safe && !strings.HasPrefix(strings.ToLower(want), kw)
	}
	id := want
	for n := 1; !safe; n++ {
		id = base + strconv.Itoa(n)
		if base == "Redis" || base == "Resource" {
			id = base + strings.Repeat("_", n-1)
		}
		safe = !d.used[id]
	}
	d.used[id] = true
	return id
}

// participant declares actor a; create is "create " at a fork.
func (d *seqDiagram) participant(create string, a ActorView) {
	id := d.ids[a.ID]
	name := a.Name.In(d.loc)
	if strings.TrimSpace(name) == "" {
		name = a.ID
	}
	s := "    " + create + "participant " + id
	if name != id {
		s += " as " + mermaidText(name)
	}
	d.line(s)
	d.lanes = append(d.lanes, id)
}

func (d *seqDiagram) firstLane(f Frame) string {
	if len(f.Actors) > 0 {
		return d.ids[f.Actors[0].ID]
	}
	return d.redis
}

// over returns the participants a note about the given actors spans.
func (d *seqDiagram) over(actors ...string) string {
	lo, hi := -1, -1
	for _, a := range actors {
		i := slices.Index(d.lanes, d.ids[a])
		if i < 0 {
			continue
		}
		if lo < 0 || i < lo {
			lo = i
		}
		if i > hi {
			hi = i
		}
	}
	switch {
	case lo < 0:
		return d.redis
	case lo == hi:
		return d.lanes[lo]
	}
	return d.lanes[lo] + "," + d.lanes[hi]
}

func (d *seqDiagram) note(over, text string) {
	d.line("    Note over " + over + ": " + mermaidText(text))
}

func (d *seqDiagram) arrow(from, arrow, to, text string) {
	d.line("    " + from + arrow + to + ": " + mermaidText(text))
}

// step writes step f.Index, which took the run from prev to f.
func (d *seqDiagram) step(prev, f Frame) {
	if f.Step == nil {
		return
	}
	st := *f.Step
	n := strconv.Itoa(f.Index) + ". "
	actor := d.ids[st.Actor]
	if actor == "" {
		actor = d.first
	}
	switch st.Do {
	case ActPause:
		d.note(actor, n+d.t("pause"))
	case ActResume:
		d.note(actor, n+d.t("resume"))
	case ActCrash:
		d.note(actor, n+d.t("crash"))
	case ActExit:
		d.note(actor, n+d.t("exit"))
	case ActFork:
		child := ActorView{ID: st.Child}
		for _, a := range f.Actors {
			if a.ID == st.Child {
				child = a
			}
		}
		if _, ok := d.ids[st.Child]; !ok {
			d.ids[st.Child] = d.assign(st.Child, "P")
		}
		if !slices.Contains(d.lanes, d.ids[st.Child]) {
			d.participant("create ", child)
		}
		if st.Context == "lost" {
			d.arrow(actor, "->>", d.ids[st.Child], n+d.t("fork", "Child", st.Child, "Context", d.t("lost")))
			break
		}
		// A child in its parent's context need not descend from it (a
		// pooled thread's next task, a callback another request's context
		// runs; issue 39): the arrow says only whose context it starts in.
		d.arrow(actor, "->>", d.ids[st.Child], n+d.t("same-context", "Child", st.Child))
	case ActAdvance:
		d.note(d.span(), n+d.t("advance", "By", d.seconds(st.ByMS)))
		d.calls(n, prev, f, st)
	case ActClockJump:
		if st.Node > 0 {
			d.note(d.span(), n+d.t("clock-jump-node", "By", d.seconds(st.ByMS), "Node", st.Node))
			break
		}
		d.note(d.span(), n+d.t("clock-jump", "By", d.seconds(st.ByMS)))
		d.calls(n, prev, f, st)
	case ActLongScript:
		// The script itself is only modelled (no call is sent for it); the
		// calls of the step are the renewals it held up.
		d.arrow(actor, "->>", d.redis, n+d.t("long-script", "By", d.seconds(st.ByMS)))
		d.calls(n, prev, f, st)
	case ActFailover:
		d.note(d.redis, n+d.t("failover"))
	case ActRestart:
		d.note(d.redis, n+d.t("restart", "Node", st.Node))
	default:
		if len(f.Calls) == 0 {
			d.note(actor, n+d.t("no-call", "Do", string(st.Do), "Outcome", string(f.Outcome)))
		}
		d.calls(n, prev, f, st)
	}
	// Lock keys that are gone: expired in an advance, a clock-jump or a
	// long script, lost with the primary at a failover.
	if st.Do == ActAdvance || st.Do == ActClockJump || st.Do == ActLongScript || st.Do == ActFailover {
		for _, k := range f.Keys {
			if !strings.HasPrefix(k.Name, lockKeyPrefix) || k.Exists() {
				continue
			}
			if !slices.ContainsFunc(prev.Keys, func(p KeyState) bool { return p.Name == k.Name && p.Exists() }) {
				continue
			}
			if st.Do == ActFailover {
				d.note(d.redis, d.t("lost-failover", "Key", k.Name))
			} else {
				d.note(d.redis, d.t("expired", "Lock", strings.TrimPrefix(k.Name, lockKeyPrefix), "Key", k.Name))
			}
		}
	}
	for _, v := range f.Violations {
		if slices.ContainsFunc(prev.Violations, func(p Violation) bool { return sameViolation(p, v) }) {
			continue
		}
		d.note(d.over(v.Actors...), d.t("violation", "Name", v.Name, "Lock", v.Lock))
	}
}

// span is the participants a note about time spans: every lane up to Redis.
func (d *seqDiagram) span() string {
	if d.first == d.redis || d.first == "" {
		return d.redis
	}
	return d.first + "," + d.redis
}

func sameViolation(a, b Violation) bool {
	return a.Name == b.Name && a.Lock == b.Lock && slices.Equal(a.Actors, b.Actors)
}

// calls writes the step's Redis calls and their replies.
func (d *seqDiagram) calls(n string, prev, f Frame, st StepInfo) {
	for i := 0; i < len(f.Calls); i++ {
		c := f.Calls[i]
		from := d.ids[st.Actor]
		prefix, times := n, ""
		if st.Do == ActAdvance || st.Do == ActClockJump || st.Do == ActLongScript {
			from = d.renewer(prev, c)
			prefix = n + d.t("watchdog")
			// Renewals alike in a row are one pair of arrows, "×k".
			k := 1
			for i+k < len(f.Calls) && sameCall(f.Calls[i+k], c) && d.renewer(prev, f.Calls[i+k]) == from {
				k++
			}
			if k > 1 {
				times = " ×" + strconv.Itoa(k)
				i += k - 1
			}
		}
		if from == "" {
			from = d.first
		}
		to := d.redis
		if (strings.HasPrefix(c.Script, "resource/write") || c.Script == "resource/check") && d.resource != "" {
			to = d.resource
		}
		req := prefix + c.Script + " KEYS[" + strings.Join(quoteArgs(c.Keys), " ") + "] ARGV[" + strings.Join(quoteArgs(c.Args), " ") + "]"
		if st.Unreplicated {
			req += " (" + d.t("unreplicated") + ")"
		}
		if c.Node > 0 {
			// A lesson with nodes: each call goes to one of them.
			req += " (" + d.t("node", "Node", c.Node) + ")"
		}
		d.arrow(from, "->>", to, req+times)
		reply := c.Reply.String() + " ⇒ " + string(c.Outcome) + times
		if c.AsBoolean != "" {
			reply += " (" + d.t("as-boolean", "Value", c.AsBoolean) + ")"
		}
		// The step's one call (a call of one node out of several is not).
		main := i == 0 && c.Node == 0 && (st.Do == ActAcquire || st.Do == ActRelease || st.Do == ActFinishRelease)
		if main && slices.Contains([]Outcome{Acquired, Reentered, StillHeld, Released}, c.Outcome) {
			// The caller's hold count, as the lock's diagram shows it.
			for _, lv := range f.Locks {
				if lv.Name == st.Lock {
					reply += " · " + d.t("count", "Count", lv.Count)
				}
			}
		}
		arrow := "-->>"
		if main && st.ReplyLost && f.Outcome == TimedOut {
			arrow = "--x"
			reply += " · " + d.t("reply-lost", "Actor", st.Actor)
		}
		d.arrow(to, arrow, from, reply)
	}
}

func sameCall(a, b CallRecord) bool {
	return a.Script == b.Script && slices.Equal(a.Keys, b.Keys) && slices.Equal(a.Args, b.Args) &&
		reflect.DeepEqual(a.Reply, b.Reply) && a.Outcome == b.Outcome && a.AsBoolean == b.AsBoolean
}

// renewer finds the actor whose watchdog made renewal call c: the one that
// held, before the step, the lock of the call's key under a token among the
// call's arguments with a renewal scheduled.
func (d *seqDiagram) renewer(prev Frame, c CallRecord) string {
	lock := ""
	if len(c.Keys) > 0 {
		lock = strings.TrimPrefix(c.Keys[0], lockKeyPrefix)
	}
	fallback := ""
	for _, a := range prev.Actors {
		for _, h := range a.Holds {
			if h.Lock != lock || !slices.Contains(c.Args, h.Token) {
				continue
			}
			if h.RenewAtMS > 0 {
				return d.ids[a.ID]
			}
			if fallback == "" {
				fallback = d.ids[a.ID]
			}
		}
	}
	return fallback
}

// seconds renders ms as a number of seconds in the locale's words.
func (d *seqDiagram) seconds(ms int64) string {
	return d.t("seconds", "N", strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64))
}

// quoteArgs quotes the arguments that would not read as one word.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.IndexFunc(a, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' }) >= 0 {
			out[i] = strconv.Quote(a)
		}
	}
	return out
}

// mermaidText escapes s for a message, a note, a participant's name or the
// title: the characters Mermaid's sequence grammar ends a text at ('#', ';',
// line breaks) and those a browser would read as markup ('<', '>') become
// entity codes, line breaks <br/>, other control characters spaces.
func mermaidText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '#':
			b.WriteString("#35;")
		case r == ';':
			b.WriteString("#59;")
		case r == '<':
			b.WriteString("#60;")
		case r == '>':
			b.WriteString("#62;")
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteString("<br/>")
		case unicode.IsControl(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	// A text that starts with "wrap:" or "nowrap:" would set wrapping.
	if low := strings.ToLower(strings.TrimLeft(out, " ")); strings.HasPrefix(low, "wrap:") || strings.HasPrefix(low, "nowrap:") {
		i := strings.Index(out, ":")
		out = out[:i] + "#58;" + out[i+1:]
	}
	if strings.TrimSpace(out) == "" {
		out = "#160;" // Mermaid needs some text after the colon
	}
	return out
}
