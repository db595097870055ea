package classserve

import (
	"strconv"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/skip2/go-qrcode"
	"golang.org/x/time/rate"

	"lockstep/templates"
)

// joinURLs are the addresses students open to join class code:
// Config.ClassURLs' (serve's LAN addresses), else the host the presenter's
// page was opened at.
func (s *Hub) joinURLs(host, code string) []string {
	bases := s.cfg.URLs
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

// templatesClassPanel is the presenter's class panel in t's language;
// port is the one the server listens on (Player.ListenPort).
func templatesClassPanel(t Texts, code string, urls []string, qr templates.QRView, port int) templ.Component {
	return templates.ClassPanel(templates.ClassPanelView{T: t.Class(), Code: code, URLs: urls, QR: qr, Port: port})
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

// JoinAllowed reports whether addr may try to join a class now: it and
// all addresses together (limits.go) have a token left.
func (s *Hub) JoinAllowed(addr string) bool {
	return s.joins.limiter(addr).Tokens() >= 1 && s.globalJoinAllowed()
}

// JoinFailed takes a token from addr: it asked for a class that does not
// exist.
func (s *Hub) JoinFailed(addr string) { s.joins.limiter(addr).Allow(); s.globalJoinFailed() }
