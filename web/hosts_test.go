package web

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"lockstep/sim"
	"lockstep/webnet"
)

// TestHostRebindingRefused: on loopback, a Host the server was not given
// (DNS rebinding: evil.example resolving to 127.0.0.1, with a matching
// Origin) gets 421 and a page in the request's language, on pages and on
// /ws; loopback names and -allowed-hosts names are answered.
func TestHostRebindingRefused(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{AllowedHosts: []string{"lockstep.example.org"}})
	port := hs.URL[strings.LastIndex(hs.URL, ":")+1:]
	do := func(host, path string, header http.Header) (*http.Response, string) {
		t.Helper()
		h := http.Header{}
		for k, v := range header {
			h[k] = v
		}
		return getHost(t, hs.URL+path, host, h)
	}
	for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example", "localhost.evil.example:" + port, "10.0.0.7:" + port} {
		for _, lang := range sim.Locales {
			resp, body := do(host, "/?lang="+string(lang), nil)
			if resp.StatusCode != http.StatusMisdirectedRequest {
				t.Fatalf("Host %s: status %d, want 421", host, resp.StatusCode)
			}
			doc := parseDOM(t, body)
			if pageLang(t, body) != string(lang) {
				t.Errorf("Host %s: refusal page not in %s", host, lang)
			}
			tt := tr(lang)
			h1 := doc.one(t, "h1", func(n *html.Node) bool { return n.Data == "h1" })
			if textOf(h1) != tt.T("HostRefusedTitle") {
				t.Errorf("Host %s %s: title %q", host, lang, textOf(h1))
			}
			want := tt.T("HostRefusedBody", "Host", webnet.NormalHost(host))
			if len(doc.all(func(n *html.Node) bool { return n.Data == "p" && textOf(n) == want })) != 1 {
				t.Errorf("Host %s %s: page does not say %q", host, lang, want)
			}
		}
		// The websocket too, with an Origin that matches the Host.
		resp, _ := do(host, "/ws", http.Header{
			"Origin": {"http://" + host}, "Connection": {"Upgrade"}, "Upgrade": {"websocket"},
			"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="},
		})
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: /ws answered %d, want 421", host, resp.StatusCode)
		}
	}
	if !strings.Contains(tr(sim.English).T("HostRefusedBody", "Host", "x"), "-allowed-hosts x") {
		t.Error("the English refusal does not name the flag")
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "127.8.9.10:" + port, "[::1]:" + port, "lockstep.example.org", "Lockstep.Example.Org:443"} {
		if resp, _ := do(host, "/", nil); resp.StatusCode != http.StatusOK {
			t.Errorf("Host %s: status %d, want 200", host, resp.StatusCode)
		}
	}
}
