package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"lockstep/drill"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
)

// TestInterviewMessages checks that every string of interview mode, the
// model answers included, is translated in every locale, and that the
// Chinese answers use the glossary's terms.
func TestInterviewMessages(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeOf(templates.Interview{})
	content := []string{"Q1", "Q2", "Q3", "A1", "A2", "A3", "OneLineAnswer", "SpokenAnswer", "SelfTestReentry", "SelfTestStale", "QuestionN"}
	for _, l := range sim.Locales {
		tl := tr(l)
		in := reflect.ValueOf(tl.Interview())
		for i := 0; i < typ.NumField(); i++ {
			name := typ.Field(i).Name
			if s, ok := tl.lookup(name); !ok || s == "" || in.Field(i).String() != s {
				t.Errorf("%s: Interview field %s has no message of its own", l, name)
			}
		}
		for _, id := range content {
			if _, ok := tl.lookup(id, "N", 1); !ok {
				t.Errorf("%s: no message %s", l, id)
			}
		}
		for _, a := range []string{"A1", "A2", "A3", "SpokenAnswer"} {
			if n := len(view.Paragraphs(tl.T(a))); n < 2 {
				t.Errorf("%s: %s has %d paragraphs", l, a, n)
			}
		}
	}
	all := func(l sim.Locale) string {
		t := tr(l)
		return t.T("A1") + t.T("A2") + t.T("A3") + t.T("OneLineAnswer") + t.T("SpokenAnswer") + t.T("InterviewIntro") + t.T("DrillsHeading") + t.T("DrillsIntro")
	}
	for l, terms := range map[sim.Locale][]string{
		sim.SimplifiedChinese:  {"可重入", "持有次数", "租约", "令牌", "栅栏令牌", "看门狗"},
		sim.TraditionalChinese: {"可重入", "持有次數", "租約", "令牌", "柵欄令牌", "看門狗"},
	} {
		text := all(l)
		for _, term := range terms {
			if !strings.Contains(text, term) {
				t.Errorf("%s: the answers do not use %s", l, term)
			}
		}
	}
	// The model answers cover the points of the card.
	en := tr(sim.English)
	for id, points := range map[string][]string{
		"A1": {"SET NX", "count", "blocks itself", "token"},
		"A2": {"every request", "Releases", "fresh random token", "thread", "new token on its next outermost acquire"},
		// Issue 16: fencing needs the resource to have seen the newer token,
		// a row version is no fencing, and a takeover answers BUSY, not LOST.
		"A3": {"NOT_OWNER", "fencing token", "renewal", "rejects", "highest it has seen", "row version", "BUSY", "LOST comes only while the key is absent"},
	} {
		for _, p := range points {
			if !strings.Contains(en.T(id), p) {
				t.Errorf("model answer %s does not mention %q", id, p)
			}
		}
	}
}

// TestInterviewPages serves the follow-up questions, the 60-second answer
// and the drills page in every language: every string is translated, the
// model answers and their lessons are there, and nothing leaves the origin.
func TestInterviewPages(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	var ids []string
	for i := 0; i < reflect.TypeOf(templates.Interview{}).NumField(); i++ {
		ids = append(ids, reflect.TypeOf(templates.Interview{}).Field(i).Name)
	}
	ids = append(ids, "Q1", "Q2", "Q3", "A1", "A2", "A3", "OneLineAnswer", "SpokenAnswer", "SelfTestReentry", "SelfTestStale", "QuestionN")
	for _, l := range sim.Locales {
		tl := tr(l)
		for _, page := range []struct {
			path  string
			texts []string
			// links are hrefs that end in "?" (a prefix: the lesson's
			// query follows) or whole; attrs are attribute=value pairs
			// ("" for any value) some element has.
			links, attrs []string
		}{
			{"/interview", []string{tl.T("Q1"), tl.T("Q2"), tl.T("Q3"), view.Paragraphs(tl.T("A3"))[1]},
				[]string{"/lessons/setnx-del?", "/lessons/instance-owner?", "/lessons/stale-owner?"}, []string{"data-answer=q1", "class=tl"}},
			{"/interview/60s", []string{tl.T("OneLineAnswer"), view.Paragraphs(tl.T("SpokenAnswer"))[0], tl.T("SelfTestReentry"), tl.T("SelfTestStale")},
				[]string{"/lessons/missed-release?"}, []string{"data-testid=diagram", "data-timer="}},
			{"/drills", []string{tl.T("DrillsHeading"), tr(l).Msg(drill.Levels[2].Title)}, []string{"/drills?lang=" + string(l) + "&level=leases"}, nil},
			{"/", nil, []string{"/interview?lang=" + string(l), "/drills?lang=" + string(l)}, []string{"data-t-score="}},
		} {
			resp, body := get(t, hs.URL+page.path+"?lang="+string(l), nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s: status %d", l, page.path, resp.StatusCode)
			}
			d := parseDOM(t, body)
			for _, w := range page.texts {
				if !d.hasText(w) {
					t.Errorf("%s %s lacks %q", l, page.path, w)
				}
			}
			for _, href := range page.links {
				match := withAttr("href", href)
				if strings.HasSuffix(href, "?") {
					match = hrefPrefix(href)
				}
				if !d.has(and(tag("a"), match)) {
					t.Errorf("%s %s has no link to %s", l, page.path, href)
				}
			}
			for _, a := range page.attrs {
				key, value, _ := strings.Cut(a, "=")
				if !d.has(withAttr(key, value)) {
					t.Errorf("%s %s has no element with %s", l, page.path, a)
				}
			}
			for _, id := range ids {
				if d.shows(id) {
					t.Errorf("%s %s shows the message id %s", l, page.path, id)
				}
			}
			if u := d.offOrigin(); len(u) > 0 {
				t.Errorf("%s %s links outside its origin: %s", l, page.path, u)
			}
			if pageLang(t, body) != string(l) {
				t.Errorf("%s %s: wrong <html lang>", l, page.path)
			}
		}
	}
}

// TestInterviewPagesWithoutTheirLessons serves the pages for a course that
// lacks the lessons they link: no link, no timeline, no error.
func TestInterviewPagesWithoutTheirLessons(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	_, hs := newTestHTTP(t, Config{Lessons: []*sim.Lesson{lessonByID(t, all, "nested-reentry")}})
	for _, path := range []string{"/interview", "/interview/60s"} {
		resp, body := get(t, hs.URL+path, nil)
		if links := parseDOM(t, body).all(attrContains("/lessons/")); resp.StatusCode != http.StatusOK || len(links) > 0 {
			t.Fatalf("%s: status %d, links a lesson: %d elements", path, resp.StatusCode, len(links))
		}
	}
}

// TestDrillRoutes opens drills by level and seed (a 303 to the player in
// predict mode), a fresh one by level, and refuses bad levels and seeds.
func TestDrillRoutes(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	noFollow := noRedirect()
	status := func(path string) (int, string) {
		t.Helper()
		resp, err := noFollow.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Location")
	}
	if code, loc := status("/drills?level=leases&seed=42&lang=zh-TW"); code != http.StatusSeeOther || loc != "/lessons/drill-leases-42?lang=zh-TW&predict=1" {
		t.Fatalf("level and seed: %d %s", code, loc)
	}
	code, loc := status("/drills?level=reentry")
	if code != http.StatusSeeOther || !regexp.MustCompile(`^/lessons/drill-reentry-\d+\?lang=en&predict=1$`).MatchString(loc) {
		t.Fatalf("fresh drill: %d %s", code, loc)
	}
	for path, want := range map[string]int{
		"/drills?level=nope&seed=1":       http.StatusNotFound,
		"/drills?level=leases&seed=x":     http.StatusBadRequest,
		"/drills?level=leases&seed=-1":    http.StatusBadRequest,
		"/drills?level=leases&seed=1e999": http.StatusBadRequest,
		"/lessons/drill-nope-1":           http.StatusNotFound,
		"/lessons/drill-leases-01":        http.StatusNotFound,
		"/lessons/drill-leases-42":        http.StatusOK,
	} {
		if code, _ := status(path); code != want {
			t.Errorf("%s: status %d, want %d", path, code, want)
		}
	}
	_, body := get(t, hs.URL+"/lessons/drill-leases-42?lang=en&predict=1", nil)
	l, err := drill.Generate(context.Background(), tr(sim.English).cat, "leases", 42)
	if err != nil {
		t.Fatal(err)
	}
	if parseDOM(t, body).text(t, "lesson title", withAttr("id", "lesson-title")) != l.Title.In(sim.English) || len(parseDOM(t, body).all(withAttr("href", "/drills?lang=en"))) == 0 {
		t.Fatal("the drill's player page lacks its title or its breadcrumb to the drills page")
	}
	if len(parseDOM(t, body).all(withAttr("data-predict-steps", view.PredictSteps(l)))) != 1 {
		t.Fatal("the drill's player page lacks its predict steps")
	}
}

// TestPredictOutcomesOfferTheRun runs every lesson of the course (and the
// test lessons) and drills of every level: before every step the player
// asks about, the buttons offer the outcome the run really gives, and a
// step it does not ask about has a single possible outcome.
func TestPredictOutcomesOfferTheRun(t *testing.T) {
	t.Parallel()
	lessons := testLessons(t)
	for _, lv := range drill.Levels {
		for seed := uint64(0); seed < 5; seed++ {
			l, err := drill.Generate(context.Background(), tr(sim.English).cat, lv.ID, seed)
			if err != nil {
				t.Fatal(err)
			}
			lessons = append(lessons, l)
		}
	}
	asked := 0
	for _, l := range lessons {
		if l.Replica {
			continue // needs a pair; its steps are covered by the variant's other lessons
		}
		frames := expectedFrames(t, l)
		var steps []*view.PredictStep
		if err := json.Unmarshal([]byte(view.PredictSteps(l)), &steps); err != nil || len(steps) != len(l.Steps) {
			t.Fatalf("%s: predict steps: %v (%d of %d)", l.ID, err, len(steps), len(l.Steps))
		}
		for i, st := range l.Steps {
			got := frames[i+1].Outcome
			if steps[i] == nil {
				if n := len(sim.OutcomesFor(st.Do)); n != 1 {
					t.Errorf("%s step %d (%s): not asked, but has %d outcomes", l.ID, i+1, st.Do, n)
				}
				continue
			}
			asked++
			if !slices.Contains(steps[i].Outcomes, got) {
				t.Errorf("%s step %d (%s %s): the run gives %s, the buttons offer %v", l.ID, i+1, st.Actor, st.Do, got, steps[i].Outcomes)
			}
			if steps[i].Actor != st.Actor || steps[i].Do != st.Do || steps[i].Lock != st.Lock {
				t.Errorf("%s step %d: predict step %+v does not describe the step", l.ID, i+1, *steps[i])
			}
		}
	}
	if asked < 100 {
		t.Fatalf("only %d steps asked about", asked)
	}
}

// TestPredictGlosses checks the glosses the buttons show: every outcome a
// prediction offers, in every language.
func TestPredictGlosses(t *testing.T) {
	t.Parallel()
	for _, l := range sim.Locales {
		var m map[string]string
		if err := json.Unmarshal([]byte(view.PredictGlosses(tr(l))), &m); err != nil {
			t.Fatal(err)
		}
		for _, a := range []sim.Action{sim.ActAcquire, sim.ActRelease, sim.ActFinishRelease, sim.ActWrite} {
			if m["act:"+string(a)] == "" {
				t.Errorf("%s: no name for action %s", l, a)
			}
			for _, o := range sim.OutcomesFor(a) {
				if m[string(o)] == "" {
					t.Errorf("%s: no gloss for %s", l, o)
				}
			}
		}
	}
}

// TestDrillBadLinkPage: a drill link with a bad seed or level gets the drills
// page in the asked language, saying what was wrong, never plain text.
func TestDrillBadLinkPage(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	var ids []string
	for _, l := range drill.Levels {
		ids = append(ids, l.ID)
	}
	for path, want := range map[string][2]string{
		"/drills?level=leases&seed=abc&lang=zh-CN": {"seed", tr(sim.SimplifiedChinese).T("DrillNoticeSeed", "Value", "abc", "Max", uint64(drill.MaxSeed))},
		"/drills?level=nope&seed=5&lang=zh-TW":     {"level", tr(sim.TraditionalChinese).T("DrillNoticeLevel", "Value", "nope", "Levels", strings.Join(ids, ", "))},
		"/drills?level=leases&seed=-3":             {"seed", tr(sim.English).T("DrillNoticeSeed", "Value", "-3", "Max", uint64(drill.MaxSeed))},
	} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s: content type %q", path, ct)
		}
		// The page's notice names the parameter (templates.Notice).
		if ns := notices(parseDOM(t, string(body))); len(ns) != 1 || ns[want[0]] != want[1] {
			t.Errorf("%s: notices %v, want %s: %q", path, ns, want[0], want[1])
		}
	}
}
