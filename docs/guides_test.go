package docs_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"lockstep/docs"
)

// TestHandler serves the variant file format as a page through the page
// function (rendered once: the same Guide every time), the Markdown file
// as UTF-8 text byte for byte, and nothing else.
func TestHandler(t *testing.T) {
	want, err := os.ReadFile("variant-format.md")
	if err != nil {
		t.Fatal(err)
	}
	var pages []docs.Guide
	hd, err := docs.Handler(func(w http.ResponseWriter, _ *http.Request, g docs.Guide) {
		pages = append(pages, g)
		w.WriteHeader(http.StatusTeapot)
	})
	if err != nil {
		t.Fatal(err)
	}
	h := http.StripPrefix("/docs", hd)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", docs.VariantFormatURL+".md", nil))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; charset=utf-8") || rec.Body.String() != string(want) {
		t.Fatalf("%s.md: %d %q, %d bytes", docs.VariantFormatURL, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
	for range 2 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", docs.VariantFormatURL, nil))
		if rec.Code != http.StatusTeapot {
			t.Fatalf("%s: %d, want the page function's", docs.VariantFormatURL, rec.Code)
		}
	}
	if len(pages) != 2 || pages[0] != pages[1] || pages[0].Name != "variant-format" || pages[0].Title != "Variant files (version 1)" {
		t.Fatalf("pages %d, first %q %q", len(pages), pages[0].Name, pages[0].Title)
	}
	for _, p := range []string{"/docs/guides.go", "/docs/nope.md", "/docs/nope", "/docs/", "/docs/screenshot-player.png"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 404 {
			t.Errorf("%s: %d, want 404", p, rec.Code)
		}
	}
}
