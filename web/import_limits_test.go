package web

import (
	"bufio"
	"bytes"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"lockstep/sim"
)

// importErrors is the text of the import errors of an explore page.
func importErrors(t *testing.T, body string) string {
	t.Helper()
	return textsOf(t, body, "li", "p")
}

// textsOf is the text of every element of page body that is one of tags,
// in document order, one per line.
func textsOf(t *testing.T, body string, tags ...string) string {
	t.Helper()
	var out []string
	for _, n := range parseDOM(t, body).all(func(n *html.Node) bool { return slices.Contains(tags, n.Data) }) {
		out = append(out, textOf(n))
	}
	return strings.Join(out, "\n")
}

// TestImportOversizeEveryEncoding: a body over the import bound gets 413
// with the limit named in the page's language, as a paste (URL-encoded:
// finding 11, once "choose a lesson file or paste one"), an upload, a raw
// body and a chunked one.
func TestImportOversizeEveryEncoding(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	big := strings.Repeat("#", maxImportBody+(80<<10))
	multi := func() (string, io.Reader) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("file", "big.yaml")
		_, _ = fw.Write([]byte(big))
		_ = mw.Close()
		return mw.FormDataContentType(), &buf
	}
	for _, c := range []struct {
		name   string
		body   func() (string, io.Reader)
		chunks bool
	}{
		{"paste", func() (string, io.Reader) {
			return "application/x-www-form-urlencoded", strings.NewReader(url.Values{"yaml": {big}}.Encode())
		}, false},
		{"paste chunked", func() (string, io.Reader) {
			return "application/x-www-form-urlencoded", strings.NewReader(url.Values{"yaml": {big}}.Encode())
		}, true},
		{"upload", multi, false},
		{"upload chunked", multi, true},
		{"raw", func() (string, io.Reader) { return "text/plain", strings.NewReader(big) }, false},
		{"raw chunked", func() (string, io.Reader) { return "", strings.NewReader(big) }, true},
	} {
		for _, lang := range sim.Locales {
			ct, r := c.body()
			if c.chunks {
				r = io.MultiReader(r) // hides the length: sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/explore/import?lang="+string(lang), r)
			if err != nil {
				t.Fatal(err)
			}
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestEntityTooLarge {
				t.Fatalf("%s %s: status %d, want 413\n%s", c.name, lang, resp.StatusCode, importErrors(t, string(b)))
			}
			want := tr(lang).T("ImportBodyTooLarge", "Limit", MaxImportBytes>>10, "Max", maxImportBody>>10)
			if !strings.Contains(want, "256") || !strings.Contains(importErrors(t, string(b)), want) {
				t.Errorf("%s %s: page does not say %q:\n%s", c.name, lang, want, importErrors(t, string(b)))
			}
		}
	}
}

// TestImportSlowBodyTimesOut: a body that does not arrive within
// Config.BodyTimeout (a byte now and then: finding 7) is answered with 408
// and the connection closed. Nothing is timed: the test waits for the
// answer the deadline brings.
func TestImportSlowBodyTimesOut(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{BodyTimeout: 300 * time.Millisecond})
	conn, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /explore/import?lang=zh-TW HTTP/1.1\r\nHost: "+hs.Listener.Addr().String()+
		"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5000\r\n\r\nyaml=t")
	if err != nil {
		t.Fatal(err)
	}
	// The rest never comes.
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	if want := tr(sim.TraditionalChinese).T("ImportBodyTimeout", "Seconds", 0.3); !strings.Contains(importErrors(t, string(b)), want) {
		t.Errorf("page does not say %q:\n%s", want, importErrors(t, string(b)))
	}
	if !resp.Close {
		t.Error("the connection is kept open after a body timeout")
	}
}
