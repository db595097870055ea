package web

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"lockstep/static"
)

// serveAccept has srv answer a GET of path in process from a loopback
// peer that sends Accept-Encoding accept ("": none).
func serveAccept(srv *Server, path, accept string) *http.Response {
	w := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1:8080"
	req.RemoteAddr = "127.0.0.1:40000"
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	srv.ServeHTTP(w, req)
	return w.Result()
}

// decodeBody undoes resp's Content-Encoding (gzip, zstd or none); it
// returns the body and how many bytes came.
func decodeBody(t *testing.T, resp *http.Response) ([]byte, int) {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader
	switch ce := resp.Header.Get("Content-Encoding"); ce {
	case "":
		return raw, len(raw)
	case "gzip":
		gr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		r = gr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out, len(raw)
}

// TestCompressedAnswers: a page is compressed, on loopback too, in the
// coding the browser offers (gzip before zstd), says Vary:
// Accept-Encoding and decodes to the page; a small answer is not
// compressed; a static file comes compressed from package static (its
// ETag names the coding); a browser that offers nothing gets plain bytes.
func TestCompressedAnswers(t *testing.T) {
	t.Parallel()
	srv, err := New(withDefaults(t, Config{}))
	if err != nil {
		t.Fatal(err)
	}
	const page = "/lessons/stale-owner?lang=zh-TW"
	plain := serveAccept(srv, page, "")
	want, _ := decodeBody(t, plain)
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || len(want) < 10<<10 {
		t.Fatalf("no Accept-Encoding: status %d, Content-Encoding %q, %d bytes", plain.StatusCode, plain.Header.Get("Content-Encoding"), len(want))
	}
	for accept, coding := range map[string]string{
		"gzip, deflate":           "gzip",
		"gzip, deflate, br, zstd": "gzip",
		"br, zstd":                "zstd",
		"zstd;q=0, gzip":          "gzip",
	} {
		resp := serveAccept(srv, page, accept)
		if got := resp.Header.Get("Content-Encoding"); got != coding {
			t.Errorf("%q: Content-Encoding %q, want %q", accept, got, coding)
			continue
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%q: Vary %q", accept, resp.Header.Get("Vary"))
		}
		got, n := decodeBody(t, resp)
		if !bytes.Equal(got, want) {
			t.Errorf("%q: decodes to %d bytes other than the plain page's %d", accept, len(got), len(want))
		}
		t.Logf("%q: %s, %d bytes for a page of %d", accept, coding, n, len(want))
		if n > len(want)/3 {
			t.Errorf("%q: %d bytes for a page of %d", accept, n, len(want))
		}
	}
	if h := serveAccept(srv, "/healthz", "gzip"); h.Header.Get("Content-Encoding") != "" {
		t.Errorf("/healthz (3 bytes): Content-Encoding %q", h.Header.Get("Content-Encoding"))
	}
	css := serveAccept(srv, static.URL("/static/", "app.css"), "gzip, deflate, br, zstd")
	if css.Header.Get("Content-Encoding") != "gzip" || !strings.HasSuffix(css.Header.Get("ETag"), `-gzip"`) ||
		!strings.Contains(css.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("app.css: Content-Encoding %q, ETag %q, Cache-Control %q",
			css.Header.Get("Content-Encoding"), css.Header.Get("ETag"), css.Header.Get("Cache-Control"))
	}
}
