package static

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// decode undoes the Content-Encoding of resp's body.
func decode(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	switch resp.Header.Get("Content-Encoding") {
	case "":
		return body
	case "gzip":
		r, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		return out
	default:
		t.Fatalf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
		return nil
	}
}

// TestHandlerEncodings: a large file is served in the coding the request
// accepts, smaller, the same bytes once decoded, with its own ETag and
// Vary; a small one (icon.svg) and a request that accepts none are served
// as they are.
func TestHandlerEncodings(t *testing.T) {
	t.Parallel()
	u := URL("/", "app.css")
	plain := serve(t, u, nil)
	want := decode(t, plain)
	if plain.Header.Get("Vary") != "Accept-Encoding" || plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("no Accept-Encoding: Vary %q, Content-Encoding %q", plain.Header.Get("Vary"), plain.Header.Get("Content-Encoding"))
	}
	for _, tc := range []struct{ accept, want string }{
		{"gzip, deflate", "gzip"},
		{"gzip, deflate, br, zstd", "gzip"},
		{"zstd, gzip;q=0.5", "gzip"},
		{"*", "gzip"},
		{"gzip;q=0, *;q=0", ""},
		{"identity", ""},
		{"br, zstd", ""},
	} {
		resp := serve(t, u, http.Header{"Accept-Encoding": {tc.accept}})
		if got := resp.Header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", tc.accept, got, tc.want)
			continue
		}
		if resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: Vary %q", tc.accept, resp.Header.Get("Vary"))
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("Accept-Encoding %q: Cache-Control %q", tc.accept, cc)
		}
		if tc.want != "" && resp.Header.Get("ETag") == plain.Header.Get("ETag") {
			t.Errorf("Accept-Encoding %q: the ETag of the plain file", tc.accept)
		}
		if !bytes.Equal(decode(t, resp), want) {
			t.Errorf("Accept-Encoding %q: decodes to other bytes", tc.accept)
		}
	}
	small := serve(t, URL("/", "icon.svg"), http.Header{"Accept-Encoding": {"gzip, zstd"}})
	if small.Header.Get("Content-Encoding") != "" || small.Header.Get("Vary") != "" {
		t.Errorf("icon.svg (small): Content-Encoding %q, Vary %q", small.Header.Get("Content-Encoding"), small.Header.Get("Vary"))
	}
	// Revalidation by the encoded body's ETag.
	gz := serve(t, "/app.css", http.Header{"Accept-Encoding": {"gzip"}})
	if r := serve(t, "/app.css", http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {gz.Header.Get("ETag")}}); r.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation of the gzip body: %d", r.StatusCode)
	}
}

// TestEncodingsSmaller: every file of MinEncodeSize bytes or more has a
// gzip body at most 7/8 of its size.
func TestEncodingsSmaller(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		f := files[name]
		encs := encodingsOf(name)
		if len(f.body) < MinEncodeSize {
			if len(encs) != 0 {
				t.Errorf("%s: %d bytes, encoded", name, len(f.body))
			}
			continue
		}
		e := pickEncoding("gzip", encs)
		if e == nil || len(e.body) > len(f.body)*7/8 {
			t.Errorf("%s: no gzip body of at most 7/8 of %d bytes", name, len(f.body))
		}
	}
}
