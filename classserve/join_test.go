package classserve

import (
	"net/http"
	"strings"
	"testing"
)

// TestPeersAndOrigin: ParsePeers normalises the peers' base URLs and
// refuses what is not one; OriginAllowed admits no Origin, the same host
// and the peers, and nothing else.
func TestPeersAndOrigin(t *testing.T) {
	t.Parallel()
	list, set, err := ParsePeers([]string{" HTTPS://B.example ", "http://10.0.0.2:8080/"})
	if err != nil || strings.Join(list, " ") != "https://b.example http://10.0.0.2:8080" || !set["https://b.example"] {
		t.Fatalf("ParsePeers: %v %v %v", list, set, err)
	}
	if _, _, err := ParsePeers([]string{"ws://b.example"}); err == nil || !strings.HasPrefix(err.Error(), "classserve: peer") {
		t.Fatalf("ws:// peer: %v", err)
	}
	for origin, want := range map[string]bool{"": true, "http://a.example": true, "https://b.example": true, "https://evil.example": false, "::": false} {
		r := &http.Request{Host: "a.example", Header: http.Header{}}
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if got := OriginAllowed(r, set); got != want {
			t.Errorf("Origin %q: %v, want %v", origin, got, want)
		}
	}
}

// TestJoinURLsAndQR: the join addresses come from Config.URLs, else the
// presenter page's host; the QR code is a square of whole modules.
func TestJoinURLsAndQR(t *testing.T) {
	t.Parallel()
	h := &Hub{cfg: Config{URLs: []string{"http://192.168.1.20:8080/"}}}
	if got := h.joinURLs("localhost:8080", "ABC123"); len(got) != 1 || got[0] != "http://192.168.1.20:8080/class/ABC123" {
		t.Fatalf("with URLs: %v", got)
	}
	h = &Hub{}
	if got := h.joinURLs("localhost:8080", "ABC123"); got[0] != "http://localhost:8080/class/ABC123" {
		t.Fatalf("without URLs: %v", got)
	}
	qr, err := qrView("http://localhost:8080/class/ABC123", "label")
	if err != nil || qr.Size < 21+8 || !strings.HasPrefix(qr.Path, "M") || qr.Label != "label" {
		t.Fatalf("qr %+v %v", qr, err)
	}
}

// TestJoinLimits: failed joins take an address's tokens; another address
// keeps its own, until the failed joins of all addresses together reach
// theirs.
func TestJoinLimits(t *testing.T) {
	t.Parallel()
	h := New(t.Context(), Config{JoinRate: 0.001, JoinBurst: 2, JoinGlobalRate: 0.001, JoinGlobalBurst: 3})
	for range 2 {
		if !h.JoinAllowed("192.0.2.1") {
			t.Fatal("refused within the burst")
		}
		h.JoinFailed("192.0.2.1")
	}
	if h.JoinAllowed("192.0.2.1") || !h.JoinAllowed("192.0.2.2") {
		t.Fatal("the limit is not per address")
	}
	h.JoinFailed("192.0.2.2")
	if h.JoinAllowed("192.0.2.3") {
		t.Fatal("a fresh address past the bound of all addresses together")
	}
	if !IsClassType(MsgClassJoin) || IsClassType(MsgClassStatus) {
		t.Fatal("IsClassType: a page's class messages only")
	}
}
