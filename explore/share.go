package explore

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"lockstep/sim"
)

// Share codes.
//
// A share code is "1." followed by base64url (no padding) of the zlib
// compression of a compact JSON object (wireLesson): the version prefix comes
// first so that a later format may change everything after it, and zlib's
// Adler-32 checksum catches a code that was cut or changed in transit. The
// JSON carries everything a sim.Runner reads, so a decoded timeline gives the
// same frames as the one that was encoded; it carries no file name and no
// positions (Decode leaves them empty).

// ShareVersion is the format version a share code starts with ("1.").
const ShareVersion = 1

// MaxCodeLen is the longest share code Decode accepts, in bytes.
const MaxCodeLen = 48 << 10

// ErrBadLink is wrapped by every error Decode returns.
var ErrBadLink = errors.New("explore: bad share link")

// Origin says where a timeline comes from.
type Origin struct {
	Lesson string // id of the course lesson it forks; "" for a sandbox or an imported file
	At     int    // the step of Lesson it forks after (0..len(steps)); 0 when Lesson is ""
	// Search names the search that found the timeline (the search file's
	// stem, or the Search page's shape); "" for any other timeline.
	Search string
	// Under is the id of the lesson whose steps and texts the timeline runs
	// under another variant than the lesson's own (Compare's columns, a
	// course lesson under the learner's own lock: Under); "" for any other
	// timeline.
	Under string
}

// Bounds on what a share code may hold. A timeline a learner builds is far
// smaller; the bounds keep a hostile code from costing the server much.
const (
	maxInflated   = 512 << 10 // bytes of JSON a code may unpack to
	maxActors     = 64
	maxSteps      = 500
	maxString     = 2000 // bytes of each string (ids, names, texts, values)
	maxViolations = 16   // expected violations of one step
)

// wireLesson is the JSON of a share code: short keys, empty fields left out.
type wireLesson struct {
	ID       string   `json:"id,omitempty"`
	Title    wireText `json:"ti,omitempty"`
	Summary  wireText `json:"su,omitempty"`
	Takeaway wireText `json:"tk,omitempty"`
	Note     wireText `json:"nt,omitempty"`
	Source   string   `json:"so,omitempty"`
	Group    string   `json:"g,omitempty"`
	Variant  string   `json:"v,omitempty"`
	LeaseMS  int64    `json:"l,omitempty"`
	Fencing  bool     `json:"f,omitempty"`
	Lock     string   `json:"k,omitempty"`
	Seed     uint64   `json:"s,omitempty"`
	Replica  bool     `json:"r,omitempty"`
	// Nodes is the lesson's nodes (an addition: codes without it still open).
	Nodes int `json:"n,omitempty"`
	// Cluster and FencingCounterTTLMS are the lesson fields cluster and
	// fencing_counter_ttl (additions: codes without them still open).
	Cluster             bool  `json:"cl,omitempty"`
	FencingCounterTTLMS int64 `json:"fc,omitempty"`
	// CheckThenWrite is the lesson field check_then_write (an addition:
	// codes without it still open).
	CheckThenWrite bool        `json:"cw,omitempty"`
	Actors         []wireActor `json:"a,omitempty"`
	Steps          []wireStep  `json:"t,omitempty"`
	Origin         string      `json:"o,omitempty"`
	At             int         `json:"at,omitempty"`
	// Search is Origin.Search (an addition: codes without it still open).
	Search string `json:"se,omitempty"`
	// Under is Origin.Under (an addition: codes without it still open).
	Under string `json:"un,omitempty"`
	// Lock is the learner's own lock when the timeline runs one (an
	// addition): its variant file and scripts, loaded again by Decode.
	OwnLock *wireLock `json:"lk,omitempty"`
}

// wireLock is a user's variant file in a share code: the file's name and
// the texts sim.LoadVariant read (sim.VariantDef.Texts), by path.
type wireLock struct {
	File  string            `json:"f"`
	Texts map[string]string `json:"t"`
}

type wireActor struct {
	ID        string   `json:"i,omitempty"`
	Name      wireText `json:"n,omitempty"`
	Instance  string   `json:"p,omitempty"`
	RequestID string   `json:"q,omitempty"`
}

type wireStep struct {
	Actor string `json:"a,omitempty"`
	Do    string `json:"d,omitempty"`
	// Lock is nil when the step works on the lesson's lock.
	Lock         *string `json:"k,omitempty"`
	LeaseMS      int64   `json:"l,omitempty"`
	ReplyLost    bool    `json:"rl,omitempty"`
	Nested       bool    `json:"ns,omitempty"`
	Unreplicated bool    `json:"u,omitempty"`
	// Node and Unreachable are a restart's node and the nodes a call does
	// not reach (additions, in a lesson with nodes).
	Node        int   `json:"nd,omitempty"`
	Unreachable []int `json:"ur,omitempty"`
	// KeepPartial is an acquire's keep_partial (an addition).
	KeepPartial bool     `json:"kp,omitempty"`
	Value       string   `json:"w,omitempty"`
	Child       string   `json:"c,omitempty"`
	Context     string   `json:"x,omitempty"`
	ByMS        int64    `json:"b,omitempty"`
	Say         wireText `json:"y,omitempty"`
	// Why, Because and Misconception are the step's teaching fields
	// (lesson fields why, because, misconception; additions).
	Why           wireText   `json:"wy,omitempty"`
	Because       []wireText `json:"wb,omitempty"`
	Misconception wireText   `json:"mc,omitempty"`
	Expect        string     `json:"e,omitempty"`
	Violations    []string   `json:"ev,omitempty"`
}

// wireText is a sim.Text: locale ("" for a plain string) to text.
type wireText map[string]string

func toWire(t sim.Text) wireText {
	if len(t) == 0 {
		return nil
	}
	w := make(wireText, len(t))
	for k, v := range t {
		w[string(k)] = v
	}
	return w
}

func fromWire(w wireText) sim.Text {
	if len(w) == 0 {
		return nil
	}
	t := make(sim.Text, len(w))
	for k, v := range w {
		t[sim.Locale(k)] = v
	}
	return t
}

// Encode returns the share code of timeline l (a valid lesson) and its origin.
// It refuses a lesson that Decode with the same options would refuse (the
// rules of sim.Validate with opts' locales, and the bounds on sizes), and one
// whose code would be longer than MaxCodeLen.
func Encode(l *sim.Lesson, o Origin, opts sim.Options) (string, error) {
	if l == nil {
		return "", errors.New("explore: cannot share a timeline: no lesson")
	}
	if problems := check(l, o, opts); len(problems) > 0 {
		return "", fmt.Errorf("explore: cannot share this timeline: %w", problems)
	}
	w := wireLesson{
		ID: l.ID, Title: toWire(l.Title), Summary: toWire(l.Summary), Takeaway: toWire(l.Takeaway),
		Note:   toWire(l.Note),
		Source: l.Source, Group: l.Group, Variant: l.Variant, LeaseMS: l.Lease.Milliseconds(),
		Fencing: l.Fencing, Lock: l.Lock, Seed: l.Seed, Replica: l.Replica, Nodes: l.Nodes,
		Cluster: l.Cluster, FencingCounterTTLMS: l.FencingCounterTTL.Milliseconds(), CheckThenWrite: l.CheckThenWrite,
		Origin: o.Lesson, At: o.At, Search: o.Search, Under: o.Under,
	}
	if d := l.VariantDef; d != nil && !d.Builtin {
		if len(d.Texts) == 0 {
			return "", errors.New("explore: cannot share this timeline: its variant file's texts are not known")
		}
		w.OwnLock = &wireLock{File: d.File, Texts: d.Texts}
	}
	for _, a := range l.Actors {
		w.Actors = append(w.Actors, wireActor{ID: a.ID, Name: toWire(a.Name), Instance: a.Instance, RequestID: a.RequestID})
	}
	for _, s := range l.Steps {
		ws := wireStep{
			Actor: s.Actor, Do: string(s.Do), LeaseMS: s.Lease.Milliseconds(), ReplyLost: s.ReplyLost, Nested: s.Nested,
			Unreplicated: s.Unreplicated, Node: s.Node, Unreachable: s.Unreachable, KeepPartial: s.KeepPartial, Value: s.Value, Child: s.Child, Context: s.Context,
			ByMS: s.By.Milliseconds(), Say: toWire(s.Say), Expect: string(s.Expect),
			Violations: s.ExpectViolations, Why: toWire(s.Why), Misconception: toWire(s.Misconception),
		}
		for _, b := range s.Because {
			ws.Because = append(ws.Because, toWire(b))
		}
		if s.Lock != l.Lock {
			lock := s.Lock
			ws.Lock = &lock
		}
		w.Steps = append(w.Steps, ws)
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return "", fmt.Errorf("explore: cannot share this timeline: %w", err)
	}
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		return "", fmt.Errorf("explore: cannot share this timeline: %w", err)
	}
	zw.Write(bytes.TrimSuffix(js.Bytes(), []byte("\n")))
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("explore: cannot share this timeline: %w", err)
	}
	code := strconv.Itoa(ShareVersion) + "." + base64.RawURLEncoding.EncodeToString(z.Bytes())
	if len(code) > MaxCodeLen {
		return "", fmt.Errorf("explore: cannot share this timeline: its link would be %d bytes; links may be at most %d (shorten the texts or remove steps)", len(code), MaxCodeLen)
	}
	return code, nil
}

// Decode parses a share code, checks it (sim.Validate's rules with opts'
// locales, explore's bounds), and returns the lesson and its origin. Every
// failure is a *LinkError wrapping ErrBadLink that says what is wrong, in
// English and as a message code; a timeline that breaks a rule has the
// problems with their field paths ("steps[3].lock"). The lesson has no File
// and no positions.
func Decode(code string, opts sim.Options) (*sim.Lesson, Origin, error) {
	if len(code) > MaxCodeLen {
		return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.too-long", "Len", len(code), "Max", MaxCodeLen), "the link is %d bytes long; Lockstep links are at most %d", len(code), MaxCodeLen)
	}
	code = strings.TrimSpace(code)
	want := strconv.Itoa(ShareVersion)
	if code == "" {
		return nil, Origin{}, problem(LinkCutShort, sim.M("explore.link.empty", "Prefix", want+"."), "the link is empty (a share code starts with %q)", want+".")
	}
	version, body, ok := strings.Cut(code, ".")
	if !ok && code == want {
		return nil, Origin{}, problem(LinkCutShort, sim.M("explore.link.no-body"), "the link is cut short (nothing after its format version)")
	}
	if !ok {
		return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.no-version", "Prefix", want+"."), "the link has no format version (a share code starts with %q)", want+".")
	}
	if version != want {
		n, err := strconv.Atoi(version)
		switch {
		case err == nil && n > ShareVersion && version == strconv.Itoa(n):
			return nil, Origin{}, problem(LinkNewer, sim.M("explore.link.newer", "Format", n, "Reads", ShareVersion), "the link was made by a newer Lockstep (format %d); this one reads format %d", n, ShareVersion)
		case len(version) > 12:
			return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.no-version", "Prefix", want+"."), "the link has no format version (a share code starts with %q)", want+".")
		default:
			return nil, Origin{}, problem(LinkNewer, sim.M("explore.link.other-format", "Format", version, "Reads", ShareVersion), "the link is in format %q, which this Lockstep does not read (it reads format %d)", version, ShareVersion)
		}
	}
	if body == "" {
		return nil, Origin{}, problem(LinkCutShort, sim.M("explore.link.no-body"), "the link is cut short (nothing after its format version)")
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			r, _ := utf8.DecodeRuneInString(body[i:])
			return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.bad-char", "Char", string(r), "At", len(version)+1+i+1), "the link is damaged (character %q at position %d does not belong in a link)", r, len(version)+1+i+1)
		}
	}
	// Not Strict: a link cut at any character leaves stray low bits in its
	// last one, and what is then missing is better reported by zlib ("cut
	// short") than as a bad character; a changed character still fails the
	// checksum.
	packed, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		if len(body)%4 == 1 {
			return nil, Origin{}, problem(LinkCutShort, sim.M("explore.link.cut-or-extra"), "the link is cut short or has a character too many")
		}
		return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.bad-end"), "the link is damaged (its last characters do not decode)")
	}
	js, err := inflate(packed)
	if err != nil {
		return nil, Origin{}, err
	}
	var w wireLesson
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.not-timeline", "Detail", jsonProblem(err)), "the link is damaged (its contents do not read as a timeline: %s)", jsonProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, Origin{}, problem(LinkDamaged, sim.M("explore.link.extra-json"), "the link is damaged (extra data after the timeline)")
	}
	l, o, problems := fromWireLesson(&w)
	if len(problems) == 0 {
		problems = check(l, o, opts)
	}
	if len(problems) > 0 {
		return nil, Origin{}, &LinkError{Problem: LinkRules, Detail: problems.Error(), Msg: sim.M("explore.link.rules"), Problems: problems}
	}
	return l, o, nil
}

// inflate undoes the zlib compression of a share code, refusing data past
// the end of the zlib stream and more than maxInflated bytes of output.
func inflate(packed []byte) ([]byte, error) {
	r := bytes.NewReader(packed)
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, inflateProblem(err)
	}
	js, err := io.ReadAll(io.LimitReader(zr, maxInflated+1))
	if err != nil {
		return nil, inflateProblem(err)
	}
	if len(js) > maxInflated {
		return nil, problem(LinkDamaged, sim.M("explore.link.too-big", "KiB", maxInflated>>10), "the link unpacks to more than %d KiB; a shared timeline is far smaller", maxInflated>>10)
	}
	if err := zr.Close(); err != nil {
		return nil, inflateProblem(err)
	}
	// zlib.Reader reads its source byte by byte (bytes.Reader is an
	// io.ByteReader), so what is left is what follows the stream.
	if r.Len() > 0 {
		return nil, problem(LinkDamaged, sim.M("explore.link.extra-bytes", "N", r.Len()), "the link is damaged (%d bytes of extra data after its end)", r.Len())
	}
	return js, nil
}

func inflateProblem(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return problem(LinkCutShort, sim.M("explore.link.cut"), "the link is cut short")
	case errors.Is(err, zlib.ErrChecksum):
		return problem(LinkDamaged, sim.M("explore.link.checksum"), "the link is damaged (checksum)")
	case errors.Is(err, zlib.ErrHeader), errors.Is(err, zlib.ErrDictionary):
		return problem(LinkDamaged, sim.M("explore.link.header"), "the link is damaged (header)")
	case errors.As(err, &corrupt):
		return problem(LinkDamaged, sim.M("explore.link.compressed"), "the link is damaged (compressed data)")
	}
	return problem(LinkDamaged, sim.M("explore.link.damaged", "Detail", err.Error()), "the link is damaged (%v)", err)
}

// LinkProblem is the kind of reason a share code cannot be opened, for a
// page's headline.
type LinkProblem int

// The kinds of LinkProblem.
const (
	LinkDamaged  LinkProblem = iota // characters changed, lost or added; not a share code
	LinkCutShort                    // part of the code is missing
	LinkNewer                       // made by a Lockstep that writes another format
	LinkRules                       // decodes, but the timeline breaks the lesson rules or explore's bounds
)

// LinkError is every error of Decode: it wraps ErrBadLink (errors.Is) and
// says what kind of problem the code has (errors.As).
type LinkError struct {
	Problem LinkProblem
	Detail  string  // what is wrong, in English
	Msg     sim.Msg // the same as a message code of the catalogue ("explore.link.*")
	// Problems are the rules the link's timeline breaks (LinkRules), with
	// their field paths.
	Problems sim.LoadErrors
}

func (e *LinkError) Error() string { return ErrBadLink.Error() + ": " + e.Detail }

// Unwrap makes errors.Is(err, ErrBadLink) hold, and errors.As find the
// rules broken (sim.LoadErrors).
func (e *LinkError) Unwrap() []error {
	if len(e.Problems) > 0 {
		return []error{ErrBadLink, e.Problems}
	}
	return []error{ErrBadLink}
}

// Message is what is wrong for people (sim.Coded).
func (e *LinkError) Message() sim.Msg { return e.Msg }

func problem(kind LinkProblem, m sim.Msg, format string, args ...any) error {
	return &LinkError{Problem: kind, Detail: fmt.Sprintf(format, args...), Msg: m}
}

// jsonProblem describes a JSON decoding error without Go type names.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %q holds %s", te.Field, te.Value)
		}
		return fmt.Sprintf("unexpected %s", te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("broken JSON at byte %d", se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "it ends too early"
	}
	// Unknown fields ("json: unknown field \"zz\"") and others.
	return strings.TrimPrefix(err.Error(), "json: ")
}

// bounds collects the problems of a share link's timeline against explore's
// bounds, as sim.LoadErrors with field paths.
type bounds struct{ errs sim.LoadErrors }

func (b *bounds) add(path string, m sim.Msg, format string, args ...any) {
	b.errs = append(b.errs, sim.LoadError{Path: path, Msg: fmt.Sprintf(format, args...), Problem: m})
}

// sizes refuses more actors or steps than a link may carry.
func (b *bounds) sizes(actors, steps int) bool {
	if actors > maxActors {
		b.add("actors", sim.M("explore.link.actors", "N", actors, "Max", maxActors), "the timeline has %d actors; at most %d may be shared", actors, maxActors)
	}
	if steps > maxSteps {
		b.add("steps", sim.M("explore.link.steps", "N", steps, "Max", maxSteps), "the timeline has %d steps; at most %d may be shared", steps, maxSteps)
	}
	return len(b.errs) == 0
}

// fromWireLesson builds the lesson of w, checking first the bounds and the
// durations that a time.Duration could not hold.
func fromWireLesson(w *wireLesson) (*sim.Lesson, Origin, sim.LoadErrors) {
	var b bounds
	if !b.sizes(len(w.Actors), len(w.Steps)) {
		return nil, Origin{}, b.errs
	}
	// The same bounds as explore mode's menu and forms: a link cannot carry
	// what the player would refuse to build.
	dur := func(path string, ms, limit int64) time.Duration {
		if e, over := overLimit(path, sim.Pos{}, ms, limit); over {
			b.errs = append(b.errs, e)
			return 0
		}
		if ms < math.MinInt64/int64(time.Millisecond) {
			b.add(path, sim.M("explore.link.duration-range", "MS", ms), "%d ms is out of range", ms)
			return 0
		}
		return time.Duration(ms) * time.Millisecond
	}
	l := &sim.Lesson{
		ID: w.ID, Title: fromWire(w.Title), Summary: fromWire(w.Summary), Takeaway: fromWire(w.Takeaway),
		Note:   fromWire(w.Note),
		Source: w.Source, Group: w.Group, Variant: w.Variant, Lease: dur("lease", w.LeaseMS, MaxLeaseMS),
		Fencing: w.Fencing, Lock: w.Lock, Seed: w.Seed, Replica: w.Replica, Nodes: w.Nodes, Cluster: w.Cluster,
		CheckThenWrite: w.CheckThenWrite,
	}
	if w.FencingCounterTTLMS != 0 {
		l.FencingCounterTTL = dur("fencing_counter_ttl", w.FencingCounterTTLMS, MaxLeaseMS)
	}
	if w.OwnLock != nil {
		def, errs := wireVariant(w.OwnLock)
		if len(errs) > 0 {
			return nil, Origin{}, errs
		}
		l.VariantDef, l.Variant = def, def.Name
	}
	for _, a := range w.Actors {
		l.Actors = append(l.Actors, sim.ActorSpec{ID: a.ID, Name: fromWire(a.Name), Instance: a.Instance, RequestID: a.RequestID})
	}
	for i, s := range w.Steps {
		path := fmt.Sprintf("steps[%d]", i+1)
		st := sim.Step{
			Actor: s.Actor, Do: sim.Action(s.Do), Lock: l.Lock, Lease: dur(path+".lease", s.LeaseMS, MaxLeaseMS),
			ReplyLost: s.ReplyLost, Nested: s.Nested, Unreplicated: s.Unreplicated, Node: s.Node, Unreachable: s.Unreachable,
			KeepPartial: s.KeepPartial, Value: s.Value, Child: s.Child, Context: s.Context, By: dur(path+".by", s.ByMS, MaxAdvanceMS), Say: fromWire(s.Say),
			Expect: sim.Outcome(s.Expect), ExpectViolations: s.Violations,
			Why: fromWire(s.Why), Misconception: fromWire(s.Misconception),
		}
		for _, b := range s.Because {
			st.Because = append(st.Because, fromWire(b))
		}
		if s.Lock != nil {
			st.Lock = *s.Lock
		}
		l.Steps = append(l.Steps, st)
	}
	return l, Origin{Lesson: w.Origin, At: w.At, Search: w.Search, Under: w.Under}, b.errs
}

// overLimit is explore mode's one bound on a duration of a timeline (a
// lease, an advance, a clock jump, a long script), in ms: the problem of ms
// at path and position p when it is over limit (MaxLeaseMS, MaxAdvanceMS).
// Decode applies it to a link's numbers, Encode (and so an imported file)
// to a lesson's durations, so that a file explore mode takes opens as a link.
func overLimit(path string, p sim.Pos, ms, limit int64) (sim.LoadError, bool) {
	if ms <= limit {
		return sim.LoadError{}, false
	}
	return sim.LoadError{Path: path, Pos: p, Msg: fmt.Sprintf("%d ms is over the %d ms that explore mode allows", ms, limit),
		Problem: sim.M("explore.link.duration-max", "MS", ms, "Max", limit)}, true
}

// durations returns the durations of l over explore mode's bounds
// (overLimit), placed at the step that holds each when l was read from a
// file (the lesson's own lease at the file's start).
func durations(l *sim.Lesson) sim.LoadErrors {
	var errs sim.LoadErrors
	at := func(p sim.Pos) sim.Pos {
		if l.File != "" && p == (sim.Pos{}) {
			return sim.Pos{Line: 1, Col: 1}
		}
		return p
	}
	add := func(path string, p sim.Pos, d time.Duration, limit int64) {
		if e, over := overLimit(path, p, d.Milliseconds(), limit); over {
			e.File = l.File
			errs = append(errs, e)
		}
	}
	add("lease", at(sim.Pos{}), l.Lease, MaxLeaseMS)
	add("fencing_counter_ttl", at(sim.Pos{}), l.FencingCounterTTL, MaxLeaseMS)
	for i, s := range l.Steps {
		path := fmt.Sprintf("steps[%d]", i+1)
		add(path+".lease", at(s.Pos), s.Lease, MaxLeaseMS)
		add(path+".by", at(s.Pos), s.By, MaxAdvanceMS)
	}
	return errs
}

// check returns every reason l and o cannot be shared: explore's bounds on
// sizes and text, the origin, and the rules of the lesson format
// (sim.Validate with opts' locales), each with its field path.
func check(l *sim.Lesson, o Origin, opts sim.Options) sim.LoadErrors {
	var b bounds
	if !b.sizes(len(l.Actors), len(l.Steps)) {
		return b.errs
	}
	str := func(path, s string) {
		switch {
		case len(s) > maxString:
			b.add(path, sim.M("explore.link.string-long", "Bytes", len(s), "Max", maxString), "%d bytes long; at most %d may be shared", len(s), maxString)
		case !utf8.ValidString(s):
			b.add(path, sim.M("explore.link.string-utf8"), "not valid UTF-8 text")
		}
	}
	text := func(path string, t sim.Text) {
		for _, loc := range slices.Sorted(maps.Keys(t)) {
			str(path+"."+string(loc), string(loc))
			str(path+"."+string(loc), t[loc])
		}
	}

	// The origin.
	str("origin", o.Lesson)
	str("search", o.Search)
	str("under", o.Under)
	if o.Under != "" && !sim.ValidLessonID(o.Under) {
		b.add("under", sim.M("explore.link.origin-id", "ID", o.Under), "the lesson id %q: want lowercase letters, digits and '-'", o.Under)
	}
	switch {
	case o.Lesson == "" && o.At != 0:
		b.add("at", sim.M("explore.link.at-without-lesson", "At", o.At), "the timeline forks no lesson, yet names step %d to fork after", o.At)
	case o.At < 0 || o.At > len(l.Steps):
		b.add("at", sim.M("explore.link.at-past-end", "At", o.At, "Steps", len(l.Steps)), "the fork point, after step %d, is past the timeline's end (it has %d %s)", o.At, len(l.Steps), plural(len(l.Steps), "step", "steps"))
	}
	if o.Lesson != "" && !sim.ValidLessonID(o.Lesson) {
		b.add("origin", sim.M("explore.link.origin-id", "ID", o.Lesson), "the forked lesson's id %q: want lowercase letters, digits and '-'", o.Lesson)
	}

	// The durations, within explore mode's bounds.
	b.errs = append(b.errs, durations(l)...)

	// The texts and names, for their size.
	for _, f := range []struct {
		path, s string
	}{{"id", l.ID}, {"source", l.Source}, {"group", l.Group}, {"variant", l.Variant}, {"lock", l.Lock}} {
		str(f.path, f.s)
	}
	text("title", l.Title)
	text("summary", l.Summary)
	text("takeaway", l.Takeaway)
	text("note", l.Note)
	for i, a := range l.Actors {
		path := fmt.Sprintf("actors[%d]", i+1)
		str(path+".id", a.ID)
		text(path+".name", a.Name)
		str(path+".instance", a.Instance)
		str(path+".request_id", a.RequestID)
	}
	for i, s := range l.Steps {
		path := fmt.Sprintf("steps[%d]", i+1)
		for _, f := range []struct {
			name, s string
		}{{"do", string(s.Do)}, {"actor", s.Actor}, {"lock", s.Lock}, {"value", s.Value}, {"child", s.Child}, {"context", s.Context}, {"expect", string(s.Expect)}} {
			str(path+"."+f.name, f.s)
		}
		text(path+".say", s.Say)
		text(path+".why", s.Why)
		text(path+".misconception", s.Misconception)
		if len(s.Because) > sim.MaxBecause {
			b.add(path+".because", sim.M("lesson.because-count", "Got", len(s.Because), "Max", sim.MaxBecause), "because: want 2 to %d reasons, got %d", sim.MaxBecause, len(s.Because))
		}
		for j, r := range s.Because {
			if j < sim.MaxBecause {
				text(fmt.Sprintf("%s.because[%d]", path, j+1), r)
			}
		}
		if len(s.ExpectViolations) > maxViolations {
			b.add(path+".expect_violation", sim.M("explore.link.violations", "N", len(s.ExpectViolations), "Max", maxViolations), "%d expected violations; at most %d", len(s.ExpectViolations), maxViolations)
		}
		for j, v := range s.ExpectViolations {
			str(fmt.Sprintf("%s.expect_violation[%d]", path, j+1), v)
		}
	}
	if len(b.errs) > 0 {
		// Texts too long to echo are not validated (the validator's
		// messages quote them).
		return b.errs
	}
	if err := opts.Validate(l); err != nil {
		var les sim.LoadErrors
		if errors.As(err, &les) {
			return les
		}
		b.add("", sim.M("explore.link.damaged", "Detail", err.Error()), "%v", err)
	}
	return b.errs
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// maxLockFiles bounds the files of a user's lock in a share code: the
// variant file and a script per section.
const maxLockFiles = 5

// wireVariant loads the user's lock a share code carries, from its texts
// only (no file is read), with every check of sim.LoadVariant: its
// problems are at their files' lines.
func wireVariant(w *wireLock) (*sim.VariantDef, sim.LoadErrors) {
	var b bounds
	if len(w.Texts) > maxLockFiles {
		b.add("lock", sim.M("explore.link.lock-files", "N", len(w.Texts), "Max", maxLockFiles), "the lock has %d files; at most %d may be shared", len(w.Texts), maxLockFiles)
		return nil, b.errs
	}
	src, ok := w.Texts[w.File]
	if !ok {
		b.add("lock", sim.M("explore.link.lock-no-file", "File", w.File), "the lock's variant file %s is not in the link", w.File)
		return nil, b.errs
	}
	def, err := sim.LoadVariant(w.File, []byte(src), func(p string) ([]byte, error) {
		if t, ok := w.Texts[p]; ok {
			return []byte(t), nil
		}
		return nil, fmt.Errorf("%s is not in the link", p)
	})
	if err != nil {
		var les sim.LoadErrors
		if errors.As(err, &les) {
			return nil, les
		}
		b.add("lock", sim.M("explore.link.damaged", "Detail", err.Error()), "%v", err)
		return nil, b.errs
	}
	return def, nil
}
