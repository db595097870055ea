package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/skip2/go-qrcode"
	"golang.org/x/time/rate"

	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// Defaults of the class fields of Config.
const (
	// DefaultClassIdle: a lecture's pause, or a long exercise, is shorter.
	DefaultClassIdle = 45 * time.Minute
	// DefaultClassJoinRate and DefaultClassJoinBurst bound the joins of
	// unknown class codes from one address: one per 2 s, 10 at once.
	DefaultClassJoinRate  = 0.5
	DefaultClassJoinBurst = 10
)

// serveClass serves /class/CODE, the student's page: the player of the
// class's current step, in the page's language, which follows the
// presenter over the websocket (class-join). A wrong code answers 404 and
// an ended class 410, each a page in the user's language.
func (s *Server) serveClass(w http.ResponseWriter, r *http.Request) {
	loc := s.negotiate(r)
	t := s.tr(loc)
	raw := r.PathValue("code")
	addr := s.clientAddr(r)
	if !s.joinAllowed(addr) {
		s.classGone(w, r, t, raw, http.StatusTooManyRequests, t.cl.ClassUnknownTitle, t.T("ws.class-joins"))
		return
	}
	code, err := classroom.ParseCode(raw)
	var st classroom.State
	if err == nil {
		st, err = s.loadClassState(r.Context(), code)
	}
	switch {
	case errors.Is(err, classroom.ErrBadCode) || errors.Is(err, classbus.ErrNoClass):
		s.joinFailed(addr)
		s.classGone(w, r, t, raw, http.StatusNotFound, t.cl.ClassUnknownTitle, t.cl.ClassUnknownBody)
		return
	case err != nil:
		s.logf("web: class page: %v", err)
		// The cause is the operator's to read (the log), not the visitor's.
		s.classGone(w, r, t, code, http.StatusServiceUnavailable, t.T("ClassUnavailableTitle"), t.T("ws.class-unavailable"))
		return
	case st.Ended:
		s.classGone(w, r, t, code, http.StatusGone, t.cl.ClassEndedTitle, t.cl.ClassEndedBody)
		return
	}
	var tl = s.lesson(r.Context(), st.Lesson)
	if st.Timeline != "" {
		tl, err = s.decodeTimeline(st.Timeline)
	}
	if err != nil || tl.Lesson == nil {
		s.classGone(w, r, t, code, http.StatusNotFound, t.cl.ClassUnknownTitle, t.cl.ClassUnknownBody)
		return
	}
	l := tl.Lesson
	step := min(st.Step, len(l.Steps))
	h := s.header(t, tl, st.Timeline, step, false)
	h.ClassStart, h.Class = false, &templates.ClassBar{Code: code, Peers: s.peers}
	h.Langs = langOptions(t, func(l sim.Locale) string { return classURL(code, l) })
	p := templates.PlayerPage{
		UI: t.UI(), Lang: string(loc), Assets: assets(), LessonID: l.ID, Timeline: st.Timeline, Step: step, Total: len(l.Steps),
		Title:    l.Title.In(loc) + " · " + t.UI().AppName,
		Header:   h,
		Controls: s.playerControls(t, l, step, DefaultSpeed),
		Steps:    view.PredictSteps(l),
		Panels:   s.prerender(r.Context(), t, tl, step),
	}
	writePage(w, r, http.StatusOK, templates.Player(p))
}

// classURL is the student page of class code in locale l.
func classURL(code string, l sim.Locale) string {
	return "/class/" + url.PathEscape(code) + "?lang=" + string(l)
}

// classGone answers a class page that cannot be shown: status, and a page
// in t's language that says title and body, naming what was asked.
func (s *Server) classGone(w http.ResponseWriter, r *http.Request, t *translator, code string, status int, title, body string) {
	ui := t.UI()
	ui.NotFoundTitle, ui.NotFoundBody = title, body
	loc := t.locale
	writePage(w, r, status, templates.NotFound(templates.NotFoundPage{
		UI: ui, Lang: string(loc), Assets: assets(), ID: view.Clip(code, maxEcho), CourseURL: "/?lang=" + string(loc),
		Langs: langOptions(t, func(l sim.Locale) string { return "?lang=" + string(l) }),
	}))
}

// joinURLs are the addresses students open to join class code:
// Config.ClassURLs' (serve's LAN addresses), else the host the presenter's
// page was opened at.
func (s *Server) joinURLs(host, code string) []string {
	bases := s.cfg.ClassURLs
	if len(bases) == 0 {
		bases = []string{"http://" + host}
	}
	out := make([]string, len(bases))
	for i, b := range bases {
		out[i] = strings.TrimSuffix(b, "/") + "/class/" + code
	}
	return out
}

// qrView is the QR code of text as a templates.QRView: one path of unit
// squares, with a quiet zone of 4 modules (the standard's).
func qrView(text, label string) (templates.QRView, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return templates.QRView{}, err
	}
	q.DisableBorder = true
	bits := q.Bitmap()
	const quiet = 4
	var path strings.Builder
	for y, row := range bits {
		for x := 0; x < len(row); x++ {
			if !row[x] {
				continue
			}
			run := 1 // one rectangle per run of dark modules in a row
			for x+run < len(row) && row[x+run] {
				run++
			}
			path.WriteString("M" + strconv.Itoa(x+quiet) + " " + strconv.Itoa(y+quiet) + "h" + strconv.Itoa(run) + "v1h-" + strconv.Itoa(run) + "z")
			x += run - 1
		}
	}
	return templates.QRView{Size: len(bits) + 2*quiet, Path: path.String(), Label: label}, nil
}

// templatesClassPanel is the presenter's class panel in t's language.
func templatesClassPanel(t *translator, code string, urls []string, qr templates.QRView) templ.Component {
	return templates.ClassPanel(templates.ClassPanelView{T: t.cl, Code: code, URLs: urls, QR: qr})
}

// joinLimits bounds the joins of unknown class codes per address
// (Config.ClassJoinRate): a failed join takes a token, and an address
// without one is refused, so guessing codes is slow while a room behind
// one NAT address joins at once.
type joinLimits struct {
	rate  rate.Limit
	burst int
	mu    sync.Mutex
	m     map[string]*rate.Limiter
}

// maxJoinAddrs bounds the addresses joinLimits remembers; past it, the
// table starts again (an address that guessed is bounded again from a
// full burst, no worse than one more burst).
const maxJoinAddrs = 10000

func (j *joinLimits) limiter(addr string) *rate.Limiter {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.m == nil || len(j.m) >= maxJoinAddrs {
		j.m = map[string]*rate.Limiter{}
	}
	l := j.m[addr]
	if l == nil {
		l = rate.NewLimiter(j.rate, j.burst)
		j.m[addr] = l
	}
	return l
}

// joinAllowed reports whether addr may try to join a class now: it and
// all addresses together (classlimits.go) have a token left.
func (s *Server) joinAllowed(addr string) bool {
	return s.joins.limiter(addr).Tokens() >= 1 && s.globalJoinAllowed()
}

// joinFailed takes a token from addr: it asked for a class that does not
// exist.
func (s *Server) joinFailed(addr string) { s.joins.limiter(addr).Allow(); s.globalJoinFailed() }
