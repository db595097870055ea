package web

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
)

// TestImportOverExploreLimits: a lesson file the loader takes but whose
// durations explore mode does not (a long script or an advance of a year)
// is refused by the import itself, 422 with the error at the step's
// FILE:LINE:COL in the page's language, not redirected to a player link
// that then answers 400.
func TestImportOverExploreLimits(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	head := "title: far\nvariant: token-count\nlease: 30s\nactors:\n  - id: R\n    name: R\nsteps:\n  - actor: R\n    do: acquire\n"
	for _, step := range []string{"  - {actor: R, do: long-script, by: 8760h}\n", "  - {do: advance, by: 8760h}\n"} {
		src := head + step
		if _, err := sim.Load("far.yaml", []byte(src)); err != nil {
			t.Fatalf("the loader refuses the file itself: %v", err)
		}
		for _, lang := range sim.Locales {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			fw, _ := mw.CreateFormFile("file", "far.yaml")
			_, _ = fw.Write([]byte(src))
			_ = mw.Close()
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/explore/import?lang="+string(lang), &buf)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			resp, err := noRedirect().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("%s %q: status %d (Location %q), want 422", lang, step, resp.StatusCode, resp.Header.Get("Location"))
			}
			want := tr(lang).cat.Render(lang, sim.M("explore.link.duration-max", "MS", int64(365*24*3600*1000), "Max", int64(explore.MaxAdvanceMS)))
			li := importErrorItem(t, string(b), "far.yaml:10:")
			if li == "" || !strings.Contains(li, want) {
				t.Errorf("%s %q: no error at far.yaml:10 saying %q:\n%s", lang, step, want, importErrors(t, string(b)))
			}
		}
	}
}

// importErrorItem is the text of the import error at where
// ("pasted.yaml:8:"), or "".
func importErrorItem(t *testing.T, body, where string) string {
	t.Helper()
	list := dom{parseDOM(t, body).one(t, "import errors", byTestID("import-errors"))}
	for _, li := range list.all(tag("li")) {
		if c := (dom{li}).all(tag("code")); len(c) > 0 && strings.HasPrefix(textOf(c[0]), where) && li.Parent.Data == "ul" {
			return textOf(li)
		}
	}
	return ""
}
