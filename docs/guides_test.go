package docs_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"lockstep/docs"
)

// TestHandler serves the variant file format as UTF-8 text, byte for byte
// the file, and nothing else.
func TestHandler(t *testing.T) {
	want, err := os.ReadFile("variant-format.md")
	if err != nil {
		t.Fatal(err)
	}
	h := http.StripPrefix("/docs", docs.Handler())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", docs.VariantFormatURL, nil))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; charset=utf-8") || rec.Body.String() != string(want) {
		t.Fatalf("%s: %d %q, %d bytes", docs.VariantFormatURL, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
	for _, p := range []string{"/docs/guides.go", "/docs/nope.md", "/docs/", "/docs/screenshot-player.png"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 404 {
			t.Errorf("%s: %d, want 404", p, rec.Code)
		}
	}
}
