package web

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"lockstep/drill"
	"lockstep/sim"
)

// notices are the page's notices by the parameter each names (the
// templates.Notice of the page's shell).
func notices(d dom) map[string]string {
	out := map[string]string{}
	for _, n := range d.all(withClass("page-notice")) {
		p, _ := attr(n, "data-param")
		out[p] = textOf(n)
	}
	return out
}

// getStatusDOM GETs url with header and returns its status and parsed body.
func getStatusDOM(t *testing.T, url string, header http.Header) (int, dom) {
	t.Helper()
	resp, body := get(t, url, header)
	return resp.StatusCode, parseDOM(t, body)
}

// TestPlayerStepNotice: a player link whose step is past the end, negative
// or not a number shows the nearest valid step under a notice, in the
// page's language, naming the parameter and the range; a valid step has
// none.
func TestPlayerStepNotice(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	l := testLessons(t)[0]
	total := len(l.Steps)
	for _, c := range []struct {
		step   string
		loc    sim.Locale
		id     string
		shown  int
		notice bool
	}{
		{"999", sim.TraditionalChinese, "NoticeStepRange", total, true},
		{"-3", sim.English, "NoticeStepRange", 0, true},
		{"abc", sim.SimplifiedChinese, "NoticeStepNotNumber", 0, true},
		{"1.5", sim.English, "NoticeStepNotNumber", 0, true},
		{"2", sim.English, "", 2, false},
		{"2.0", sim.English, "", 2, false},
	} {
		status, d := getStatusDOM(t, hs.URL+"/lessons/"+l.ID+"?step="+url.QueryEscape(c.step)+"&lang="+string(c.loc), nil)
		if status != http.StatusOK {
			t.Fatalf("step=%s: %d", c.step, status)
		}
		player := d.one(t, "player", withAttr("id", "player"))
		if got, _ := attr(player, "data-step"); got != strconv.Itoa(c.shown) {
			t.Errorf("step=%s: data-step %s, want %d", c.step, got, c.shown)
		}
		ns := notices(d)
		if !c.notice {
			if len(ns) != 0 {
				t.Errorf("step=%s: notices %v, want none", c.step, ns)
			}
			continue
		}
		want := tr(c.loc).T(c.id, "Value", c.step, "Max", total, "Shown", c.shown)
		if ns["step"] != want || len(ns) != 1 {
			t.Errorf("step=%s: notices %v, want step: %q", c.step, ns, want)
		}
	}
	// present=yes is not presenter mode, predict=on not predict mode, and
	// the page says so.
	_, d := getStatusDOM(t, hs.URL+"/lessons/"+l.ID+"?present=yes&predict=on&lang=en", nil)
	if want := tr(sim.English).T("NoticePresent", "Value", "yes"); notices(d)["present"] != want {
		t.Errorf("present=yes: notices %v, want %q", notices(d), want)
	}
	if want := tr(sim.English).T("NoticePredict", "Value", "on"); notices(d)["predict"] != want {
		t.Errorf("predict=on: notices %v, want %q", notices(d), want)
	}
}

// collapse is s with its whitespace collapsed, as textOf gives a text.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestTimelineStepNotice: the player of a shared timeline says so too.
func TestTimelineStepNotice(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	loc := getPage(t, hs.URL, "/explore/new?variant=token-count&lease_ms=30000&actors=2&lock=order:42&lang=en", http.StatusSeeOther)
	_, d := getStatusDOM(t, hs.URL+loc+"&step=7", nil)
	if want := tr(sim.English).T("NoticeStepRange", "Value", "7", "Max", 0, "Shown", 0); notices(d)["step"] != want {
		t.Errorf("notices %v, want step: %q", notices(d), want)
	}
}

// TestLangNotice: a lang the site does not speak is named in a notice, with
// the languages offered, on a page of any package, in the language the
// page falls back to (Accept-Language); a lang it reads has none.
func TestLangNotice(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	zh := http.Header{"Accept-Language": {"zh-CN,zh;q=0.9"}}
	for _, path := range []string{"/?lang=fr", "/designs?lang=fr", "/explore/lock?lang=fr", "/lessons/" + testLessons(t)[0].ID + "?lang=fr"} {
		status, d := getStatusDOM(t, hs.URL+path, zh)
		if status != http.StatusOK {
			t.Fatalf("%s: %d", path, status)
		}
		html := d.one(t, "html", tag("html"))
		if lang, _ := attr(html, "lang"); lang != "zh-CN" {
			t.Errorf("%s: page in %q, want zh-CN", path, lang)
		}
		got := notices(d)["lang"]
		t.Logf("%s: %s", path, got)
		if !strings.Contains(got, "“fr”") || !strings.Contains(got, tr(sim.SimplifiedChinese).T("LanguageName")) {
			t.Errorf("%s: lang notice %q: want the value and the page's language", path, got)
		}
		for _, l := range sim.Locales {
			if !strings.Contains(got, string(l)+" ("+tr(l).T("LanguageName")+")") {
				t.Errorf("%s: lang notice %q does not offer %s", path, got, l)
			}
		}
	}
	for _, path := range []string{"/?lang=zh_tw", "/?lang=en-US", "/?lang="} {
		if _, d := getStatusDOM(t, hs.URL+path, nil); len(notices(d)) != 0 {
			t.Errorf("%s: notices %v, want none", path, notices(d))
		}
	}
}

// TestDrillsParamNotices: a drill link with a level or a seed that does not
// read stays on the drills page (404 for a level, 400 for a seed) with a notice for every bad
// parameter, naming it and its valid values.
func TestDrillsParamNotices(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	var ids []string
	for _, l := range drill.Levels {
		ids = append(ids, l.ID)
	}
	tw := tr(sim.TraditionalChinese)
	status, d := getStatusDOM(t, hs.URL+"/drills?level=1&seed=abc&lang=zh-TW", nil)
	ns := notices(d)
	if status != http.StatusNotFound || len(ns) != 2 {
		t.Fatalf("level=1&seed=abc: %d, notices %v", status, ns)
	}
	if want := tw.T("DrillNoticeLevel", "Value", "1", "Levels", strings.Join(ids, ", ")); ns["level"] != want {
		t.Errorf("level notice %q, want %q", ns["level"], want)
	}
	if want := tw.T("DrillNoticeSeed", "Value", "abc", "Max", uint64(drill.MaxSeed)); ns["seed"] != want {
		t.Errorf("seed notice %q, want %q", ns["seed"], want)
	}
	if loc := getPage(t, hs.URL, "/drills?level="+ids[0]+"&seed=7&lang=en", http.StatusSeeOther); !strings.Contains(loc, "seed") && !strings.Contains(loc, "/lessons/") {
		t.Errorf("a good drill link goes to %q", loc)
	}
}

// TestJoinCodeNotices: an empty or malformed class code keeps the student
// on the join page with what was typed and a notice in the page's
// language; a good one goes to its class.
func TestJoinCodeNotices(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, c := range []struct {
		code string
		loc  sim.Locale
		want string
	}{
		{"", sim.TraditionalChinese, tr(sim.TraditionalChinese).T("NoticeJoinEmpty", "Len", 6)},
		{"AB!0", sim.SimplifiedChinese, tr(sim.SimplifiedChinese).T("NoticeJoinCode", "Value", "AB!0", "Len", 6)},
		{"K7P3QXZZ", sim.English, tr(sim.English).T("NoticeJoinCode", "Value", "K7P3QXZZ", "Len", 6)},
	} {
		status, d := getStatusDOM(t, hs.URL+"/join?code="+url.QueryEscape(c.code)+"&lang="+string(c.loc), nil)
		if status != http.StatusBadRequest {
			t.Errorf("code %q: %d, want 400", c.code, status)
		}
		if got := notices(d)["code"]; got != c.want {
			t.Errorf("code %q: notice %q, want %q", c.code, got, c.want)
		}
		in := d.one(t, "code input", withAttr("id", "join-code"))
		if v, _ := attr(in, "value"); v != c.code {
			t.Errorf("code %q: the input holds %q", c.code, v)
		}
	}
	if loc := getPage(t, hs.URL, "/join?code=k7p+3qx&lang=en", http.StatusSeeOther); !strings.HasPrefix(loc, "/class/K7P3QX?") {
		t.Errorf("a good code goes to %q", loc)
	}
}

// cutMultipart is a multipart form of fields (in order) whose body breaks
// off keep bytes into its last field's value, and its content type.
func cutMultipart(t *testing.T, fields [][2]string, keep int) ([]byte, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	b := body.Bytes()
	last := fields[len(fields)-1][1]
	end := bytes.LastIndex(b, []byte(last))
	return bytes.Clone(b[:end+keep]), mw.FormDataContentType()
}

// post sends body with content type ct to url and returns the status and
// the parsed page.
func post(t *testing.T, url, ct string, body []byte) (int, dom) {
	t.Helper()
	resp, err := http.Post(url, ct, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := html.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, dom{n}
}

// TestLockFormBrokenOff: a "Your lock" form whose body breaks off in a
// script is answered in the page's language, naming the field, with what
// arrived back in the form: not the multipart parser's "NextPart: EOF".
func TestLockFormBrokenOff(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	files := redissonFiles(t)
	script := files["script_1"]
	body, ct := cutMultipart(t, [][2]string{
		{"variant_name", files["variant_name"]}, {"variant", files["variant"]},
		{"script_name_1", files["script_name_1"]}, {"script_1", script},
	}, 40)
	status, d := post(t, hs.URL+"/explore/lock?lang=zh-TW", ct, body)
	if status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", status)
	}
	failed := d.text(t, "lock-failed", byTestID("lock-failed"))
	if want := tr(sim.TraditionalChinese).Msg(sim.M("web.form.broken-field", "Field", "script_1")); !strings.Contains(failed, want) || strings.Contains(failed, "NextPart") {
		t.Errorf("lock-failed %q, want %q", failed, want)
	}
	if got := textOf(d.one(t, "variant", byTestID("lock-variant"))); got != collapse(files["variant"]) {
		t.Errorf("the variant file came back as %.80q", got)
	}
	if got := textOf(d.one(t, "script 1", byTestID("lock-script-1"))); got != collapse(script[:40]) {
		t.Errorf("script 1 came back as %q, want what arrived %q", got, script[:40])
	}
}

// TestImportBrokenOff: a lesson paste whose body breaks off is answered in
// the page's language, with what arrived of the paste kept.
func TestImportBrokenOff(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	paste := "title: {en: cut}\nvariant: token-count\nlease: 30s\nactors: [{id: A}]\nsteps:\n  - {actor: A, do: acquire}\n"
	body, ct := cutMultipart(t, [][2]string{{"yaml", paste}}, 30)
	status, d := post(t, hs.URL+"/explore/import?lang=zh-CN", ct, body)
	if status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", status)
	}
	if got := textOf(d.one(t, "import text", byTestID("import-text"))); got != collapse(paste[:30]) {
		t.Errorf("the paste came back as %q, want %q", got, paste[:30])
	}
	want := tr(sim.SimplifiedChinese).Msg(sim.M("web.form.broken-field", "Field", "yaml"))
	if !d.hasText(want) {
		t.Errorf("the page does not say %q", want)
	}
}

// TestSearchWrongTypesNamed: a search message with several fields of the
// wrong type names every one of them (json.Unmarshal names the first),
// in the message and in its fields, as the Search page marks them.
func TestSearchWrongTypesNamed(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	c := dial(t, hs, nil)
	c.send(map[string]any{"type": MsgSearch, "id": 1, "search": map[string]any{"variant": "token-count", "actors": "two", "depth": "8", "lease_ms": true}})
	m := c.readSearch()
	want := tr(sim.English).Msg(sim.M("ws.wrong-types", "Fields", "search.lease_ms, search.actors, search.depth"))
	if m.Type != MsgError || m.Code != ErrCodeBadJSON || m.Message != want || !slices.Equal(m.Fields, []string{"lease", "actors", "depth"}) {
		t.Fatalf("got %+v, want %q naming lease, actors and depth", m, want)
	}
}

// TestOwnLockLuaSyntaxPlace: on "Your lock", a Lua syntax error in a
// learner's script, and goto (which Redis's Lua 5.1 lacks), are placed at
// the script's own line and column, as Redis would place them.
func TestOwnLockLuaSyntaxPlace(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	for _, c := range []struct{ head, where, code string }{
		{"local a = 1\nlocal s = 'abc\n", "redisson-rlock/acquire.lua:2:11", "variant.lua-error"},
		{"local a = 1\nif a then goto skip end\n::skip::\n", "redisson-rlock/acquire.lua:2:11", "variant.lua-52"},
	} {
		files := redissonFiles(t)
		files["script_1"] = c.head + files["script_1"]
		resp := postLock(t, hs.URL, files)
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%q: status %d, want 422", c.head, resp.StatusCode)
		}
		n, err := html.Parse(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		errs := dom{n}.all(byTestID("lock-error"))
		if len(errs) != 1 {
			t.Fatalf("%q: %d problems, want 1", c.head, len(errs))
		}
		got := textOf(errs[0].FirstChild) // the <code> with FILE:LINE:COL
		if got != c.where {
			t.Errorf("%q: placed at %q, want %q (%s)", c.head, got, c.where, textOf(errs[0]))
		}
		if c.code == "variant.lua-52" && !strings.Contains(textOf(errs[0]), "goto") {
			t.Errorf("%q: %q does not name goto", c.head, textOf(errs[0]))
		}
	}
}

// TestSandboxNamesEveryBadNumber: the sandbox form names both of its number
// fields when neither reads, in the page's language, with the form kept.
func TestSandboxNamesEveryBadNumber(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	status, d := getStatusDOM(t, hs.URL+"/explore/new?variant=token-count&lease_ms=abc&actors=x&lock=order:42&lang=zh-TW", nil)
	if status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", status)
	}
	got := d.text(t, "sandbox error", byTestID("sandbox-error"))
	tw := tr(sim.TraditionalChinese)
	for _, f := range [][2]string{{"lease_ms", "abc"}, {"actors", "x"}} {
		if want := tw.Msg(sim.M("web.sandbox.number", "Field", f[0], "Got", f[1])); !strings.Contains(got, want) {
			t.Errorf("sandbox error %q lacks %q", got, want)
		}
	}
}

// TestSearchFromUnknownLesson: a Search link from a lesson the course does
// not have says so under from, rather than dropping it.
func TestSearchFromUnknownLesson(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	d := getDOM(t, hs.URL+"/search?variant=token-count&from=no-such-lesson&lang=zh-CN")
	li := d.one(t, "from problem", and(tag("li"), withAttr("data-param", "from")))
	if want := tr(sim.SimplifiedChinese).T("SearchParamFrom", "Param", "from", "Value", "no-such-lesson"); textOf(li) != want {
		t.Errorf("from problem %q, want %q", textOf(li), want)
	}
}

// TestOwnLockParserErrorsNameNoLibrary: on "Your lock" in zh-TW and zh-CN,
// a YAML syntax error in the variant file and a Lua syntax error in a
// script come each placed first (FILE:LINE:COL, the <code> the problem
// starts with), then the parser's own detail in a sentence of the page's
// language that names no library (a fresh review of issue 38: zh-TW
// learners read "YAML 解析器（goccy/go-yaml）的原話" and "gopher-lua").
func TestOwnLockParserErrorsNameNoLibrary(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	place := regexp.MustCompile(`^redisson-rlock(\.variant\.yaml|/acquire\.lua):\d+:\d+$`)
	for _, lang := range []sim.Locale{sim.TraditionalChinese, sim.SimplifiedChinese} {
		for _, c := range []struct{ what, field, head string }{
			{"YAML", "variant", "description: [unclosed\n"},
			{"Lua", "script_1", "local a = 1\nlocal s = 'abc\n"},
		} {
			files := redissonFiles(t)
			files[c.field] = c.head + files[c.field]
			resp := postLockIn(t, hs.URL, string(lang), files)
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("%s %s: status %d, want 422", lang, c.what, resp.StatusCode)
			}
			n, err := html.Parse(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			errs := dom{n}.all(byTestID("lock-error"))
			if len(errs) == 0 {
				t.Fatalf("%s %s: no problem shown", lang, c.what)
			}
			where, all := textOf(errs[0].FirstChild), textOf(errs[0])
			if !place.MatchString(where) {
				t.Errorf("%s %s: the problem starts with %q, want its FILE:LINE:COL (%s)", lang, c.what, where, all)
			}
			for _, lib := range []string{"goccy", "go-yaml", "gopher-lua", "gopher"} {
				if strings.Contains(all, lib) {
					t.Errorf("%s %s: the problem names the library %q: %s", lang, c.what, lib, all)
				}
			}
			if !strings.Contains(all, c.what+" ") || len([]rune(all)) < len([]rune(where))+12 {
				t.Errorf("%s %s: the problem %q does not say the parser's detail in a %s sentence", lang, c.what, all, c.what)
			}
		}
	}
}
