package catalog_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// sourceRef matches what a learner cannot follow in a narration or a banner:
// a source document by its seed number ("seed 001", "种子", "资料 001") or a
// Lua file path ("local-count/release.lua"). Template actions ({{.Seed}})
// are removed before the match.
var sourceRef = regexp.MustCompile(`(?i)\bseeds?\b|种子|種子|资料 ?0\d\d|資料 ?0\d\d|[\w/.-]+\.lua\b`)

var templateAction = regexp.MustCompile(`\{\{[^}]*\}\}`)

// lessonTextFields are the fields of a lesson a learner reads.
var lessonTextFields = map[string]bool{
	"title": true, "summary": true, "takeaway": true, "note": true, "name": true,
	"say": true, "why": true, "because": true, "misconception": true,
}

// bannerExempt are catalogue keys (by prefix) whose "seed" or ".lua" is the
// thing itself: a drill's random seed, the file names of your own lock's
// scripts, a lesson file's seed field.
var bannerExempt = []string{"Drill", "drill.", "Lock", "lesson.seed", "variant."}

// TestNarrationNamesNoSeed checks every text a learner reads in a lesson and
// every banner and narration of the catalogue, in every locale: none names a
// source document by its seed number or a Lua file by its path (issue 39).
// The source field and the Lua panel keep the file names.
func TestNarrationNamesNoSeed(t *testing.T) {
	check := func(where, s string) {
		if m := sourceRef.FindString(templateAction.ReplaceAllString(s, "")); m != "" {
			t.Errorf("%s names %q: say what the source is (the interview card, the Node.js design, the Java design), not its seed or file: %s", where, m, s)
		}
	}
	n := 0
	walkLessonStrings(t, func(where, s string) {
		if isLessonText(where) {
			n++
			check(where, s)
		}
	})
	for _, pat := range []string{"sim.*.toml", "narration.*.toml", "ui.*.toml"} {
		names, err := filepath.Glob(pat)
		if err != nil || len(names) == 0 {
			t.Fatalf("no %s (%v)", pat, err)
		}
		for _, name := range names {
			var m map[string]any
			if _, err := toml.DecodeFile(name, &m); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for k, v := range m {
				if exempt(k) {
					continue
				}
				walkStrings(v, name+"."+k, func(where, s string) { n++; check(where, s) })
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d texts checked: the walk misses files", n)
	}
}

// isLessonText reports whether the walk path where (file.steps[3].say.en)
// is a text a learner reads.
func isLessonText(where string) bool {
	parts := strings.Split(where, ".")
	for i := len(parts) - 1; i >= 1; i-- {
		p := parts[i]
		if j := strings.IndexByte(p, '['); j >= 0 {
			p = p[:j]
		}
		if lessonTextFields[p] {
			return true
		}
		if p != "en" && p != "zh-CN" && p != "zh-TW" && parts[i] == p {
			return false
		}
	}
	return false
}

func exempt(key string) bool {
	for _, p := range bannerExempt {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}
