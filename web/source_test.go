package web

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"lockstep/drill"
	"lockstep/lessons"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"

	"golang.org/x/net/html"
)

// TestSourceParts checks that each seed file name in a source becomes its
// title in the reader's language, with the name kept and the text around
// it as written.
func TestSourceParts(t *testing.T) {
	t.Parallel()
	en, cn := tr(sim.English), tr(sim.SimplifiedChinese)
	node, card, java := en.T("SeedNodeContext"), en.T("SeedInterviewCard"), en.T("SeedJavaThreadLocal")
	for _, c := range []struct {
		t    *translator
		src  string
		want []templates.SourcePart
	}{
		{en, "000_ababaab3e824e250.txt", []templates.SourcePart{{Title: node, Seed: "000_ababaab3e824e250.txt"}}},
		{en, "001_5402deabadbfda6d.txt", []templates.SourcePart{{Title: card, Seed: "001_5402deabadbfda6d.txt"}}},
		{en, "004_9ef5ee932af18c81.txt", []templates.SourcePart{{Title: java, Seed: "004_9ef5ee932af18c81.txt"}}},
		{en, "000_ababaab3e824e250.txt, 001_5402deabadbfda6d.txt", []templates.SourcePart{
			{Title: node, Seed: "000_ababaab3e824e250.txt", Rest: ", "},
			{Title: card, Seed: "001_5402deabadbfda6d.txt"},
		}},
		{en, "001_5402deabadbfda6d.txt (follow-up question 1; a known mistake)", []templates.SourcePart{
			{Title: card, Seed: "001_5402deabadbfda6d.txt", Rest: " (follow-up question 1; a known mistake)"},
		}},
		{cn, "004_9ef5ee932af18c81.txt", []templates.SourcePart{{Title: "Java：ThreadLocal 持有次数与 Hash 可重入锁", Seed: "004_9ef5ee932af18c81.txt"}}},
		{cn, "001_5402deabadbfda6d.txt（追问 1；一种常见错误）", []templates.SourcePart{
			{Title: cn.T("SeedInterviewCard"), Seed: "001_5402deabadbfda6d.txt", Rest: "（追问 1；一种常见错误）"},
		}},
		// Text that cites no seed stays one part, ", " and all.
		{en, "Redisson RLock lock watchdog (lockWatchdogTimeout 30 s, renewal every 10 s)", []templates.SourcePart{
			{Rest: "Redisson RLock lock watchdog (lockWatchdogTimeout 30 s, renewal every 10 s)"},
		}},
		{en, "https://www.letianbiji.com/redis/redis-ex-time-change.html", []templates.SourcePart{
			{Rest: "https://www.letianbiji.com/redis/redis-ex-time-change.html"},
		}},
		{en, "see 004_9ef5ee932af18c81.txt", []templates.SourcePart{
			{Rest: "see "}, {Title: java, Seed: "004_9ef5ee932af18c81.txt"},
		}},
		{en, "", nil},
	} {
		if got := view.SourceParts(c.t, c.src); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: sourceParts(%q) = %#v, want %#v", c.t.locale, c.src, got, c.want)
		}
	}
	// Every seed has a title in every language, and not its id.
	for _, l := range sim.Locales {
		for name, id := range view.SeedTitleIDs() {
			if s, ok := tr(l).lookup(id); !ok || s == id || strings.Contains(s, ".txt") {
				t.Errorf("%s: seed %s has no title (%q)", l, name, s)
			}
		}
	}
	// An <option> gets the titles as text and the names for its title.
	text, seeds := view.SourceText(en, "000_ababaab3e824e250.txt, 001_5402deabadbfda6d.txt (follow-up question 2)")
	if text != node+", "+card+" (follow-up question 2)" || seeds != "000_ababaab3e824e250.txt, 001_5402deabadbfda6d.txt" {
		t.Errorf("sourceText = %q, %q", text, seeds)
	}
	if text, seeds := view.SourceText(en, "Redisson RLock (lock watchdog)"); text != "Redisson RLock (lock watchdog)" || seeds != "" {
		t.Errorf("sourceText of a non-seed = %q, %q", text, seeds)
	}
}

// notesSay reports whether one of the page's source notes, read as
// "[title](seed file)" for a seed and "`text`" for a code part, contains
// want.
func notesSay(t *testing.T, page, want string) bool {
	t.Helper()
	for _, note := range parseDOM(t, page).all(withClass("source")) {
		var b strings.Builder
		for c := note.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
			case withClass("seed")(c):
				file, _ := attr(c, "title")
				b.WriteString("[" + textOf(c) + "](" + file + ")")
			case c.Data == "code":
				b.WriteString("`" + textOf(c) + "`")
			default:
				b.WriteString(textOf(c))
			}
		}
		if strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
			return true
		}
	}
	return false
}

// TestSourcePages checks that the course page, the player and the explore
// sandbox show a seed by its title in the page's language, keep its file
// name in the title attribute and no longer show the bare name.
func TestSourcePages(t *testing.T) {
	t.Parallel()
	_, hs := newTestHTTP(t, Config{})
	seed := func(l sim.Locale, name string) string {
		return "[" + tr(l).T(view.SeedTitleIDs()[name]) + "](" + name + ")"
	}
	for _, l := range []sim.Locale{sim.English, sim.SimplifiedChinese} {
		q := "?lang=" + string(l)
		_, course := get(t, hs.URL+"/"+q, nil)
		for _, want := range []string{
			seed(l, "000_ababaab3e824e250.txt") + ", " + seed(l, "001_5402deabadbfda6d.txt"),
			seed(l, "004_9ef5ee932af18c81.txt"),
			// A source that is no seed is in the page's language
			// (LessonSource<Id>), and a URL stays as written.
			"`" + tr(l).T("LessonSourceWatchdogRenewal") + "`",
			"`https://www.letianbiji.com/redis/redis-ex-time-change.html`",
		} {
			if !notesSay(t, course, want) {
				t.Errorf("%s: course page lacks %s", l, want)
			}
		}
		for _, c := range []struct{ id, want string }{
			{"nested-reentry", seed(l, "001_5402deabadbfda6d.txt")},
			{"lost-context-self-block", seed(l, "000_ababaab3e824e250.txt") + ", " + seed(l, "001_5402deabadbfda6d.txt")},
			{"nil-read-as-false", seed(l, "004_9ef5ee932af18c81.txt")},
		} {
			resp, body := get(t, hs.URL+"/lessons/"+c.id+q, nil)
			if resp.StatusCode != 200 || !notesSay(t, body, c.want) {
				t.Errorf("%s: player of %s (status %d) lacks %s", l, c.id, resp.StatusCode, c.want)
			}
		}
		_, explore := get(t, hs.URL+"/explore"+q, nil)
		card := tr(l).T("SeedInterviewCard")
		opt := parseDOM(t, explore).one(t, "token-count option", and(tag("option"), withAttr("value", "token-count")))
		if title, _ := attr(opt, "title"); !hasAttr(opt, "selected") || title != "001_5402deabadbfda6d.txt" || textOf(opt) != "token-count · "+card {
			t.Errorf("%s: explore page's token-count option is not selected, titled with its seed and named by the seed's title", l)
		}
		for page, body := range map[string]string{"course": course, "explore": explore} {
			if text := textOf(parseDOM(t, body).root); strings.Contains(text, "001_5402deabadbfda6d.txt") || strings.Contains(text, "· 001_") {
				t.Errorf("%s: the %s page still shows a bare seed file name", l, page)
			}
		}
	}
	// The Chinese page's titles are Chinese.
	if _, body := get(t, hs.URL+"/lessons/nil-read-as-false?lang=zh-CN", nil); !notesSay(t, body, "ThreadLocal 持有次数与 Hash 可重入锁](") {
		t.Error("zh-CN player lacks the Chinese seed title")
	}
}

// seedOrURL matches what a source cites by name in every language: a seed
// file name or a URL.
var seedOrURL = regexp.MustCompile(`\d{3}_[0-9a-f]{16}\.txt|https?://\S+`)

// TestLessonSourceInPageLanguage checks the source note of every course
// lesson in the view models of the player's header and of the course page's
// card: in Chinese it is not the lesson file's English ("(a thread id alone
// is not unique across acquisitions)") but the catalogue's
// LessonSource<Id>, citing the same seeds in the same order; in English it
// is the file's source, so the catalogue's English cannot drift from the
// file (issue 39).
func TestLessonSourceInPageLanguage(t *testing.T) {
	t.Parallel()
	s, _ := newTestHTTP(t, Config{})
	course, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	cards := map[sim.Locale]map[string][]templates.SourcePart{}
	for _, loc := range sim.Locales {
		cards[loc] = map[string][]templates.SourcePart{}
		for _, g := range s.coursePage(loc).Groups {
			for _, c := range g.Lessons {
				cards[loc][c.ID] = c.Source
			}
		}
	}
	// note is a source's words, seeds' titles left out; seeds its seeds.
	note := func(parts []templates.SourcePart) (note string, seeds []string) {
		for _, p := range parts {
			note += p.Rest
			if p.Seed != "" {
				seeds = append(seeds, p.Seed)
			}
		}
		return note, seeds
	}
	noURL := func(sim.Locale) string { return "" }
	notes := 0
	for _, l := range course {
		en := s.lessonHeader(s.tr(sim.English), l, noURL).Source
		if want := view.SourceParts(tr(sim.English), l.Source); !reflect.DeepEqual(en, want) {
			t.Errorf("%s: English source %#v, want the file's %#v", l.File, en, want)
		}
		enNote, enSeeds := note(en)
		// A source that is only seeds and URLs has nothing to translate.
		words := strings.ContainsFunc(seedOrURL.ReplaceAllString(l.Source, ""), unicode.IsLetter)
		if words {
			notes++
		}
		for _, loc := range sim.Locales {
			h := s.lessonHeader(s.tr(loc), l, noURL).Source
			if !reflect.DeepEqual(cards[loc][l.ID], h) {
				t.Errorf("%s %s: the course card's source %#v is not the header's %#v", l.File, loc, cards[loc][l.ID], h)
			}
			if loc == sim.English {
				continue
			}
			n, seeds := note(h)
			if !reflect.DeepEqual(seeds, enSeeds) {
				t.Errorf("%s %s: source cites seeds %v, the file %v", l.File, loc, seeds, enSeeds)
			}
			if words && (n == enNote || !strings.ContainsFunc(n, func(r rune) bool { return unicode.Is(unicode.Han, r) })) {
				t.Errorf("%s %s: the source note is not in the page's language: %q", l.File, loc, n)
			}
		}
	}
	if notes < 20 {
		t.Fatalf("only %d lessons with a source note: the check misses them", notes)
	}
	// A drill's header says its source ("drill leases #7") in the page's
	// language too.
	d := drill.Timeline(tr(sim.English).cat, drill.Levels[0], 7)
	for _, loc := range sim.Locales {
		src := s.drillHeader(s.tr(loc), d, 0, false).Source
		n, _ := note(src)
		switch {
		case len(src) != 1:
			t.Errorf("drill %s: source %#v, want one part", loc, src)
		case loc == sim.English && n != d.Source:
			t.Errorf("drill en: source %q, want the drill's %q", n, d.Source)
		case loc != sim.English && (n == d.Source || !strings.ContainsFunc(n, func(r rune) bool { return unicode.Is(unicode.Han, r) })):
			t.Errorf("drill %s: the source %q is not in the page's language", loc, n)
		}
	}
}
