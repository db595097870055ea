package web

import (
	"net"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"lockstep/classbus"
	"lockstep/sim"
)

// freeAddr is a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestBrowserClassPeers: a student's page from server A follows a
// presenter on server B (one bus, each the other's -classroom-peers); A
// is killed, the presenter moves on, and the page reconnects, through
// its list, to B and shows the class's current step.
func TestBrowserClassPeers(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	l := lessonByID(t, all, classLesson)
	bus := classbus.NewMemory(nil)
	t.Cleanup(func() { _ = bus.Close() })
	addrA, addrB := freeAddr(t), freeAddr(t)
	a := startServer(t, Config{Lessons: all, ClassBus: bus, ClassPeers: []string{"http://" + addrB}}, addrA)
	b := startServer(t, Config{Lessons: all, ClassBus: bus, ClassPeers: []string{"http://" + addrA}}, addrB)

	p := newTab(t)
	run(t, p, chromedp.Navigate(b.url+lessonURL(l.ID, 0, sim.English, false)))
	waitStep(t, p, 0)
	click(t, p, "[data-class-start]")
	join := waitValue[string](t, p, `document.querySelector('[data-class-url]')?.textContent || ''`, "the join address")
	code := join[strings.LastIndex(join, "/")+1:]

	s := newTab(t)
	run(t, s, chromedp.Navigate(a.url+"/class/"+code))
	waitJS(t, p, `document.querySelector('[data-class-students]').textContent.includes('1')`, "1 student connected")
	press(t, p, kb.ArrowRight)
	waitStep(t, s, 1)
	a.stop()
	press(t, p, kb.ArrowRight)
	press(t, p, kb.ArrowRight)
	waitStep(t, p, 3)
	waitStep(t, s, 3)
	if got := eval[string](t, s, `location.origin`); got != a.url {
		t.Fatalf("the student's page is at %s, want A's %s", got, a.url)
	}
}
