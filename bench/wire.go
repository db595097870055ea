package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"time"

	"lockstep/backend"
	"lockstep/internal/benchtable"
	"lockstep/sim"
	"lockstep/web"
)

// Section 7 measures what a lesson costs on the wire before its first
// step (issue 34): the bytes of a player's first load and of a second
// lesson page, compressed as a browser over http asks (gzip) against the
// same files as they are, and the server's CPU per page served, per
// coding. The headless-Chromium twin of the first rows, with the
// Performance API's transfer sizes (headers too), is
// web.TestBrowserFirstLoadBytes.

// staticRef matches a page's reference to a static file; moduleRef a
// module's static import; playerRef main.js's dynamic import of the
// player's module, which it loads on a page with a player (the others it
// and app.js import dynamically, the classroom's, the lock form's, the
// Search page's, are not loaded on a lesson).
var (
	staticRef = regexp.MustCompile(`(?:src|href)="(/static/[^"?]+\?v=[0-9a-f]+)"`)
	moduleRef = regexp.MustCompile(`(?m)^(?:import|export)\b[^;"']*?"\./([^"]+\.js\?v=[0-9a-f]+)"`)
	playerRef = regexp.MustCompile(`\bimport\("\./(app\.js\?v=[0-9a-f]+)"\)`)
)

// fetchBytes GETs url with Accept-Encoding accept ("" for none) and
// returns the body as sent (not decoded) and as the page reads it.
func fetchBytes(c *http.Client, url, accept string) (sent int, body []byte, err error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, nil, fmt.Errorf("bench: GET %s: %d %v", url, resp.StatusCode, err)
	}
	if resp.Header.Get("Content-Encoding") == "" {
		return len(raw), raw, nil
	}
	// Ask again for the plain body, to follow its references.
	_, plain, err := fetchBytes(c, url, "")
	return len(raw), plain, err
}

// firstLoad fetches a player page and everything it loads (its static
// files, main.js's player module and their imports, each once), and
// returns the bytes sent, the page's alone and the files' count.
func firstLoad(c *http.Client, base, page, accept string) (total, html, files int, err error) {
	sent, body, err := fetchBytes(c, base+page, accept)
	if err != nil {
		return 0, 0, 0, err
	}
	total, html = sent, sent
	var queue []string
	for _, m := range staticRef.FindAllSubmatch(body, -1) {
		if !strings.HasPrefix(string(m[1]), "/static/noscript.css?") { // for a browser with JavaScript off
			queue = append(queue, string(m[1]))
		}
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		n, b, err := fetchBytes(c, base+u, accept)
		if err != nil {
			return 0, 0, 0, err
		}
		total += n
		for _, m := range append(moduleRef.FindAllSubmatch(b, -1), playerRef.FindAllSubmatch(b, -1)...) {
			queue = append(queue, "/static/"+string(m[1]))
		}
	}
	return total, html, len(seen) + 1, nil
}

// serveCPU is the process CPU per request of n in-process GETs of path on
// s, with Accept-Encoding accept.
func serveCPU(s *server, path, accept string, n int) time.Duration {
	cpu0 := processCPU()
	for range n {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Host = "127.0.0.1"
		req.RemoteAddr = "127.0.0.1:40000"
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		s.web.ServeHTTP(httptest.NewRecorder(), req)
	}
	return (processCPU() - cpu0) / time.Duration(n)
}

// wireRows adds section 7 for server s, whose course is ls on backend be.
func wireRows(t *benchtable.Table, s *server, be *backend.Backend, ls []*sim.Lesson, pages int) error {
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer c.CloseIdleConnections()
	first, second := "/lessons/"+ls[0].ID+"?lang=en", "/lessons/"+ls[1].ID+"?lang=en"
	gz, gzHTML, files, err := firstLoad(c, s.hs.URL, first, "gzip, deflate")
	if err != nil {
		return err
	}
	plain, plainHTML, _, err := firstLoad(c, s.hs.URL, first, "")
	if err != nil {
		return err
	}
	t.Add("7", fmt.Sprintf("a lesson player's first load: bodies sent, gzip as Chromium asks over http (%d files; the page %.1f KB)", files, float64(gzHTML)/1000),
		fmt.Sprintf("%.1f KB", float64(gz)/1000),
		fmt.Sprintf("not compressed %.1f KB (the page %.1f KB)", float64(plain)/1000, float64(plainHTML)/1000),
		fmt.Sprintf("%.2fx", float64(gz)/float64(plain)), "≤ 60 KB with headers (web.TestBrowserFirstLoadBytes)", benchtable.Yes(gz <= 60_000))
	sent, _, err := fetchBytes(c, s.hs.URL+second, "gzip, deflate")
	if err != nil {
		return err
	}
	zs, _, err := fetchBytes(c, s.hs.URL+second, "zstd")
	if err != nil {
		return err
	}
	t.Add("7", "a second lesson page: its HTML (the hashed files are cached), gzip; zstd alone offered",
		fmt.Sprintf("%.1f KB; %.1f KB", float64(sent)/1000, float64(zs)/1000), "", "", "≤ 15 KB", benchtable.Yes(sent <= 15_000))
	for _, p := range []struct{ what, path string }{{"a lesson page (rendered per request)", first}, {"app.css (compressed once, at start)", "/static/app.css"}} {
		serveCPU(s, p.path, "gzip", pages/10) // warm
		base := serveCPU(s, p.path, "", pages)
		g := serveCPU(s, p.path, "gzip, deflate", pages)
		z := serveCPU(s, p.path, "zstd", pages)
		t.Add("7", fmt.Sprintf("server CPU to serve %s, in process, %d each: gzip; zstd alone offered", p.what, pages),
			fmt.Sprintf("%s; %s", us(g), us(z)), "not compressed "+us(base),
			fmt.Sprintf("%.2fx; %.2fx", float64(g)/float64(base), float64(z)/float64(base)), "report", "-")
	}
	// The step round trip does not pass through the compression wrapper
	// (/ws is routed around it); against a server without the wrapper
	// (Config.PlainPages), passes alternated so that drift hits both.
	unwrapped, err := startServer(be, ls, 10, time.Hour, func(c *web.Config) { c.PlainPages = true })
	if err != nil {
		return err
	}
	defer unwrapped.close()
	var on, off []time.Duration
	for range 2 {
		for _, p := range []struct {
			s   *server
			out *[]time.Duration
		}{{s, &on}, {unwrapped, &off}} {
			r, err := stepRoundTrips(p.s, ls, 1, 0)
			if err != nil {
				return err
			}
			*p.out = append(*p.out, r.times...)
		}
	}
	a, b := summarize(on), summarize(off)
	ratio := float64(a.p50) / float64(b.p50)
	t.Add("7", fmt.Sprintf("step round trip, embedded, loopback, back to back, this build (%d steps)", a.n),
		"p50 "+us(a.p50)+", p99 "+us(a.p99), "PlainPages (no compression wrapper) p50 "+us(b.p50)+", p99 "+us(b.p99),
		fmt.Sprintf("p50 %.2fx, p99 %.2fx", ratio, float64(a.p99)/float64(b.p99)), "p50 ≤ 1.1x", benchtable.Yes(ratio <= 1.1))
	return nil
}
