package web

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"lockstep/explore"
	"lockstep/sim"
)

// importProblems are the problems an explore page lists for an import:
// "FILE:LINE:COL message" each, and whether the problem links a line of
// the lesson's listing (a problem in another file does not).
func importProblems(t *testing.T, body string) map[string]bool {
	t.Helper()
	list := dom{parseDOM(t, body).one(t, "import errors", byTestID("import-errors"))}
	out := map[string]bool{}
	for _, li := range list.all(tag("li")) {
		if li.Parent.Data != "ul" {
			continue
		}
		_, elsewhere := attr(li, "data-elsewhere")
		out[strings.Join(strings.Fields(textOf(li)), " ")] = !elsewhere && len((dom{li}).all(tag("a"))) == 1
	}
	return out
}

// TestImportLessonWithVariantFile is issue 33 item 8's import: a lesson
// file that names a variant file (examples/variants' Redisson lesson)
// imports with the variant file and its scripts sent beside it. Sent
// alone, it comes back with the problem at the line that names the
// variant file, in the page's language; with a script missing, at the
// variant file's line that names the script; with every file (pasted or
// uploaded), it opens in the player, its share code carrying the lock.
func TestImportLessonWithVariantFile(t *testing.T) {
	t.Parallel()
	srv, hs := newTestHTTP(t, Config{})
	read := func(p string) string {
		b, err := os.ReadFile("../examples/variants/" + p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lesson, variant := read("redisson-rlock.lesson.yaml"), read("redisson-rlock.variant.yaml")
	post := func(lang sim.Locale, fields, uploads map[string]string, want int) (string, string) {
		t.Helper()
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for k, v := range fields {
			_ = mw.WriteField(k, v)
		}
		fw, _ := mw.CreateFormFile("file", "redisson-rlock.lesson.yaml")
		_, _ = fw.Write([]byte(lesson))
		for name, text := range uploads {
			field := "scripts"
			if strings.HasSuffix(name, sim.VariantFileSuffix) {
				field = "variant_file"
			}
			fw, _ := mw.CreateFormFile(field, name)
			_, _ = fw.Write([]byte(text))
		}
		_ = mw.Close()
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/explore/import?lang="+string(lang), &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := noRedirect().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("import: %d, want %d\n%s", resp.StatusCode, want, importErrors(t, string(b)))
		}
		return resp.Header.Get("Location"), string(b)
	}

	// The lesson alone: what is missing, where the lesson names it.
	tw := tr(sim.TraditionalChinese)
	_, body := post(sim.TraditionalChinese, nil, nil, http.StatusUnprocessableEntity)
	notSent := "redisson-rlock.lesson.yaml:8:10 " + tw.Msg(sim.M("variant.not-sent", "Variant", "./redisson-rlock.variant.yaml"))
	if got := importProblems(t, body); len(got) != 1 || !got[notSent] {
		t.Fatalf("the lesson alone: problems %v, want %q linked to its line", got, notSent)
	}
	if !strings.Contains(notSent, "變體檔案") {
		t.Errorf("not in the page's language: %q", notSent)
	}

	// The variant file pasted with two of its three scripts: the third is
	// named where the variant file names it, and nothing sent is lost.
	fields := map[string]string{
		"variant":       variant,
		"script_name_1": "redisson-rlock/acquire.lua", "script_1": read("redisson-rlock/acquire.lua"),
		"script_name_2": "redisson-rlock/release.lua", "script_2": read("redisson-rlock/release.lua"),
	}
	_, body = post(sim.English, fields, nil, http.StatusUnprocessableEntity)
	missing := "redisson-rlock.variant.yaml:19:11 " + tr(sim.English).Msg(sim.M("variant.script-not-sent", "Path", "redisson-rlock/renew.lua"))
	if got := importProblems(t, body); len(got) != 1 || got[missing] || !hasProblem(got, missing) {
		t.Fatalf("a script missing: problems %v, want %q, in another file", got, missing)
	}
	page := parseDOM(t, body)
	part := dom{page.one(t, "the variant file part", byTestID("import-variant"))}
	if _, open := attr(part.root, "open"); !open || textOf(part.one(t, "the variant file", withAttr("name", "variant"))) != strings.Join(strings.Fields(variant), " ") || part.value(t, "script_name_2") != "redisson-rlock/release.lua" {
		t.Error("the variant file part is not open with the files sent")
	}

	// Every file: the variant file and the scripts uploaded (a script by
	// its base name), and the lesson runs on the lock.
	loc, _ := post(sim.English, nil, map[string]string{
		"redisson-rlock.variant.yaml": variant,
		"acquire.lua":                 read("redisson-rlock/acquire.lua"),
		"renew.lua":                   read("redisson-rlock/renew.lua"),
		"release.lua":                 read("redisson-rlock/release.lua"),
	}, http.StatusSeeOther)
	u, err := url.Parse(loc)
	if err != nil || u.Path != "/explore" {
		t.Fatalf("import redirect %q", loc)
	}
	tl, err := srv.decodeTimeline(u.Query().Get("t"))
	if err != nil {
		t.Fatal(err)
	}
	// A share code that carries a learner's lock opens as a timeline of
	// that lock (explore.Shared), whatever made it.
	if d := tl.Lesson.VariantDef; tl.Kind != explore.KindOwnLock || d == nil || d.Builtin || d.Name != "redisson-rlock" || d.Renew == nil || tl.Lesson.ID != "redisson-rlock" {
		t.Fatalf("the imported timeline: kind %v, variant %+v", tl.Kind, tl.Lesson.VariantDef)
	}
	getPage(t, hs.URL, loc, http.StatusOK)
}

// hasProblem reports whether problems has want, not linked to a line of
// the lesson's listing.
func hasProblem(problems map[string]bool, want string) bool {
	linked, ok := problems[want]
	return ok && !linked
}
