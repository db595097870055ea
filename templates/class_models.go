package templates

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ClassTexts are the classroom's strings (catalog/classroom.*.toml), one
// field per message id.
type ClassTexts struct {
	ClassStart        string // the header's button that starts a class
	ClassJoinAt       string // "Join at"
	ClassCodeLabel    string // "Class code"
	ClassQRLabel      string // the QR code's accessible name
	ClassStudents     string // "{n} students" (the page fills n)
	ClassStudentsOne  string // "1 student"
	ClassChip         string // the folded join address: "{code} · {n} joined"
	ClassLoopback     string // the join address is loopback: no phone reaches it; the fix follows
	JoinNav           string // the site header's link to /join
	JoinNavShort      string // the same on a phone, where the site's links share one row
	JoinHeading       string // /join: "Join a class"
	JoinIntro         string
	JoinCodeLabel     string
	JoinButton        string
	ClassAsk          string
	ClassReveal       string
	ClassCSV          string
	ClassEnd          string
	ClassEndConfirm   string // the in-page question End asks (issue 38: it was a window.confirm)
	ClassEndYes       string // its button that ends the class
	ClassEndNo        string // its button that keeps the class going
	ClassHideJoin     string
	ClassShowJoin     string
	ClassAnswered     string // "{n} answered"
	ClassAskHint      string // presenter: what Ask does
	ClassNothingToAsk string // presenter: the next step has one outcome
	ClassRightAnswer  string // "Right answer: {answer}"
	ClassFollowing    string // student: "Following the presenter"
	ClassExploring    string // student: "Exploring on your own"
	ClassExploreOwn   string
	ClassBackToClass  string
	ClassQuestion     string // student: "What will step {step} come to?"
	ClassYourAnswer   string // "Your answer: {answer}"
	ClassWaitReveal   string
	ClassRight        string // "✓ Right: it was {answer} ({why}), as you said." (outcome codes, as the buttons show them)
	ClassWrong        string // "✗ You said {guess}; it was {answer} ({why})."
	ClassNoAnswer     string // revealed, the student did not answer: "It was {answer} ({why}); …"
	ClassEndedTitle   string
	ClassEndedBody    string
	ClassUnknownTitle string
	ClassUnknownBody  string
	ClassJoinAgain    string // the "no such class" page's link back to /join
	ClassBusDown      string
	ClassResumeFailed string
}

// ClassBar is the class bar of a student's player header.
type ClassBar struct {
	Code string
	// Peers are the base URLs of the other servers of the class
	// (web.Config.ClassPeers), which the page tries after its own when its
	// websocket is lost (static/peers.js): data-class-peers, space-separated.
	Peers []string
}

// QRView is a QR code drawn as SVG: Size modules a side (quiet zone
// included), the dark modules as one path.
type QRView struct {
	Size  int
	Path  string
	Label string
}

// ClassPanelView is the presenter's class panel: where students join, as
// text and as a QR code, and the room's controls.
type ClassPanelView struct {
	T    ClassTexts
	Code string
	URLs []string
	QR   QRView
	// Port is the TCP port the server listens on (0: unknown), which the
	// loopback warning's command keeps (LoopbackCommand).
	Port int
}

// joinHead and joinTail split a join address before its class code, so
// that a projected address wraps before the code and never inside it.
func joinHead(u, code string) string {
	if code != "" && strings.HasSuffix(u, code) {
		return strings.TrimSuffix(u, code)
	}
	return u
}

func joinTail(u, code string) string {
	if code != "" && strings.HasSuffix(u, code) {
		return code
	}
	return ""
}

// LoopbackCommand is the command the class panel gives when its join
// address is loopback: the server again, listening on every interface
// (cli's -addr; webnet.HostRule then answers IP addresses), on port, the
// one it listens on now (issue 38: it said 8080 whatever the port); 0,
// unknown, gives serve's default, 8080.
func LoopbackCommand(port int) string {
	if port <= 0 {
		port = 8080
	}
	return "go run . -addr 0.0.0.0:" + strconv.Itoa(port)
}

// loopbackOnly reports whether every join address in urls is on loopback
// (localhost, 127.0.0.0/8, ::1), which no phone in the room can open.
func loopbackOnly(urls []string) bool {
	if len(urls) == 0 {
		return false
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return false
		}
		h := u.Hostname()
		if ip := net.ParseIP(h); !strings.EqualFold(h, "localhost") && (ip == nil || !ip.IsLoopback()) {
			return false
		}
	}
	return true
}

// JoinPage is /join: a form that takes a class code and opens the class
// (GET /join?code=K7P3QX goes to /class/K7P3QX).
type JoinPage struct {
	Site Site
	T    ClassTexts
	Code string // what was typed, when it was no class code
}
