// Command classmem measures what a class costs in memory while it lives
// and what is left of it once it is dropped (issue 37, item 3), on a web
// server of its own in this process (embedded Redis, in-process class
// bus): it starts N classes from one page each, closes the pages, and
// reads the live heap after a collection at each stage. `make bench` runs
// it; docs/performance.md keeps its figures.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"lockstep/backend"
	"lockstep/lessons"
	"lockstep/web"
)

func main() {
	n := flag.Int("classes", 200, "classes to start")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "classmem:", err)
		os.Exit(1)
	}
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func run(n int) error {
	be, err := backend.Open(context.Background(), backend.Config{})
	if err != nil {
		return err
	}
	defer be.Close()
	course, err := lessons.All()
	if err != nil {
		return err
	}
	const grace = 2 * time.Second
	srv, err := web.New(web.Config{Backend: web.RedisBackend(be), Lessons: course, MaxSessions: n + 10, MaxSessionsPerAddr: n + 10,
		Limits: web.Limits{MaxClasses: n, MaxClassesPerAddr: n, ClassGrace: grace, SessionReserve: -1}})
	if err != nil {
		return err
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close(context.Background())
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	before := heap()
	var conns []*websocket.Conn
	for i := range n {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		for _, m := range []string{`{"type":"load","lesson":"nested-reentry"}`, `{"type":"class-start"}`} {
			if err := c.WriteMessage(websocket.TextMessage, []byte(m)); err != nil {
				return err
			}
		}
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				return fmt.Errorf("class %d: %w", i+1, err)
			}
			var r struct{ Type, Code, Message string }
			_ = json.Unmarshal(b, &r)
			if r.Type == "error" {
				return fmt.Errorf("class %d: %s: %s", i+1, r.Code, r.Message)
			}
			if r.Type == "class-presenter" {
				break
			}
		}
	}
	live := heap()
	for _, c := range conns {
		c.Close()
	}
	for srv.Sessions() > 0 {
		time.Sleep(50 * time.Millisecond)
	}
	open := heap()
	time.Sleep(grace + time.Second)
	dropped := heap()
	kib := func(a, b uint64) float64 { return (float64(a) - float64(b)) / 1024 / float64(n) }
	fmt.Printf("class memory (%d classes, one page each, embedded Redis, in-process bus)\n", n)
	fmt.Printf("  live, presenter's page open:   %8.1f KiB per class\n", kib(live, before))
	fmt.Printf("  pages closed, within grace:    %8.1f KiB per class\n", kib(open, before))
	fmt.Printf("  after -class-grace (%s):       %8.1f KiB per class\n", grace, kib(dropped, before))
	return nil
}
