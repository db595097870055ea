package web

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"lockstep/sim"
	"lockstep/view"
)

// authorWord matches what is the author's, not the learner's: a snake_case
// identifier (a lesson field, an invariant id, a variant file's field:
// "check_then_write", "fencing_counter_ttl") or a path of the repository
// ("docs/variant-format.md", "lessons/19a-….yaml"), which a learner cannot
// open.
var authorWord = regexp.MustCompile(`\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b(?:docs|lessons|examples|catalog|static|templates|sim|web|view)/[\w./-]+|\b[\w-]+\.(?:md|go|yaml|toml|lua)\b`)

// learnerText is the text of n a learner reads, each text node apart:
// without what is deliberately marked as code (code, kbd, samp, pre: Redis
// commands, keys and scripts as they are written), tooltips (title
// elements; title attributes are not text) and the author view (the
// narration's check against the lesson file, shown only with ?author=1).
//
// Not walked: code-like elements (what a learner types or Redis shows),
// scripts and styles, <title> (an SVG shape's tooltip, where ids may stay),
// <template> (the end card's, which the page's script fills and shows at a
// lesson's last step: not checked here, left for a browser walk) and
// <noscript>.
func learnerText(n *html.Node) []string {
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "code", "kbd", "samp", "pre", "script", "style", "title", "template", "noscript":
				return
			}
			if v, _ := attr(n, "data-testid"); v == "check" {
				return
			}
		}
		if n.Type == html.TextNode {
			if s := strings.TrimSpace(n.Data); s != "" {
				out = append(out, s)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// authorWordsIn are the author's words in the learner text of n, each with
// the text it stands in.
func authorWordsIn(n *html.Node) []string {
	var out []string
	for _, s := range learnerText(n) {
		for _, w := range authorWord.FindAllString(s, -1) {
			out = append(out, w+" in "+clipQuote(s))
		}
	}
	return out
}

func clipQuote(s string) string {
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return `"` + s + `"`
}

// TestLearnerWords: no lesson field, invariant id, variant field or path
// of the repository reaches a learner's text (issue 38, item 10: "lesson
// field check_then_write", "fencing_counter_ttl", "docs/variant-format.md"
// were shown): every panel of every step of every lesson in en, zh-CN and
// zh-TW, the player's page around them (the lesson's header and intro), and
// the pages a learner opens from the site's navigation and the lock page.
// Code elements (Redis commands and keys as they are written), tooltips and
// the author view may name them.
func TestLearnerWords(t *testing.T) {
	t.Parallel()
	all := testLessons(t)
	ts := startServer(t, Config{Lessons: all}, "127.0.0.1:0")
	locales := []sim.Locale{sim.English, sim.SimplifiedChinese, sim.TraditionalChinese}
	for _, loc := range locales {
		for _, path := range []string{"/", "/explore", "/explore/lock", "/drills", "/interview", "/interview/60s", "/search", "/join"} {
			d := getDOM(t, ts.url+path+"?lang="+string(loc))
			if got := authorWordsIn(d.root); len(got) > 0 {
				t.Errorf("%s?lang=%s shows a learner the author's words: %s", path, loc, strings.Join(got, "; "))
			}
		}
	}
	for _, l := range all {
		frames := expectedFrames(t, l)
		for _, loc := range locales {
			t.Run(l.ID+"/"+string(loc), func(t *testing.T) {
				t.Parallel()
				seen := map[string]bool{}
				report := func(where string, got []string) {
					for _, g := range got {
						if !seen[g] {
							seen[g] = true
							t.Errorf("%s: %s", where, g)
						}
					}
				}
				for _, step := range []int{0, len(frames) - 1} {
					d := playerDOM(t, ts.url, l.ID, step, loc)
					report("the page at step "+itoa(step), authorWordsIn(d.root))
				}
				for cur := range frames {
					v := view.New(view.Input{Texts: tr(loc), Lesson: l, Frames: frames[:cur+1], Cur: cur})
					panels, err := v.Panels(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					names := make([]string, 0, len(panels))
					for name := range panels {
						names = append(names, name)
					}
					slices.Sort(names)
					for _, name := range names {
						report("step "+itoa(cur)+", "+name+" panel", authorWordsIn(parseDOM(t, panels[name]).root))
					}
				}
			})
		}
	}
}

// TestAuthorWordCaught: the walk of TestLearnerWords finds the words it
// looks for in a learner's text and passes them in code, tooltips and the
// author view.
func TestAuthorWordCaught(t *testing.T) {
	t.Parallel()
	d := parseDOM(t, `<p>The lesson field check_then_write, see docs/variant-format.md or 19a.yaml</p>
		<p>Redis keys <code>fence_counter</code> <kbd>lease_ms</kbd><svg><title>no_owner_overlap</title></svg></p>
		<p data-testid="check">✓ as the lesson expects: fencing_counter_ttl</p><p>lock:order:42, Redis 7.2, t = 1.5 s, e.g. NOT_OWNER</p>`)
	got := authorWordsIn(d.root)
	var words []string
	for _, g := range got {
		w, _, _ := strings.Cut(g, " in ")
		words = append(words, w)
	}
	if want := []string{"check_then_write", "docs/variant-format.md", "19a.yaml"}; !slices.Equal(words, want) {
		t.Errorf("found %q, want %q", words, want)
	}
}
