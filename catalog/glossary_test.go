package catalog_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"

	"lockstep/internal/lessontest"
)

// glossary is catalog/glossary.yaml: every term in en / zh-CN / zh-TW with
// the variants each Chinese form replaces.
type glossary struct {
	Terms []struct {
		En string `yaml:"en"`
		// EnForbidden lists English wordings that name the concept
		// misleadingly ("hold #" for a grant number reads as the hold
		// count); no English text may use them.
		EnForbidden []string     `yaml:"en-forbidden"`
		ZhCN        glossaryForm `yaml:"zh-CN"`
		ZhTW        glossaryForm `yaml:"zh-TW"`
	} `yaml:"terms"`
}

type glossaryForm struct {
	Term      string   `yaml:"term"`
	Forbidden []string `yaml:"forbidden"`
	Allow     []string `yaml:"allow"`
}

// chineseText is one zh-CN or zh-TW text and where it lives.
type chineseText struct {
	locale, where, text string
}

func loadGlossary(t *testing.T) glossary {
	t.Helper()
	src, err := os.ReadFile("glossary.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var g glossary
	if err := yaml.UnmarshalWithOptions(src, &g, yaml.Strict()); err != nil {
		t.Fatalf("glossary.yaml: %v", err)
	}
	if len(g.Terms) == 0 {
		t.Fatal("glossary.yaml has no terms")
	}
	return g
}

// catalogueTexts returns every string of the zh-CN and zh-TW message files.
func catalogueTexts(t *testing.T) []chineseText {
	t.Helper()
	var out []chineseText
	for _, loc := range []string{"zh-CN", "zh-TW"} {
		names, err := filepath.Glob("*." + loc + ".toml")
		if err != nil || len(names) == 0 {
			t.Fatalf("no %s message files (%v)", loc, err)
		}
		for _, n := range names {
			var m map[string]any
			if _, err := toml.DecodeFile(n, &m); err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			walkStrings(m, n, func(where, s string) { out = append(out, chineseText{loc, where, s}) })
		}
	}
	return out
}

// englishTexts returns every string of the English message files and every
// English text of the lessons (a plain string or an en: entry).
func englishTexts(t *testing.T) []chineseText {
	t.Helper()
	var out []chineseText
	names, err := filepath.Glob("*.en.toml")
	if err != nil || len(names) == 0 {
		t.Fatalf("no English message files (%v)", err)
	}
	for _, n := range names {
		var m map[string]any
		if _, err := toml.DecodeFile(n, &m); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		walkStrings(m, n, func(where, s string) { out = append(out, chineseText{"en", where, s}) })
	}
	walkLessonStrings(t, func(where, s string) {
		if !strings.HasSuffix(where, ".zh-CN") && !strings.HasSuffix(where, ".zh-TW") {
			out = append(out, chineseText{"en", where, s})
		}
	})
	return out
}

// lessonTexts returns every zh-CN and zh-TW text of the lessons.
func lessonTexts(t *testing.T) []chineseText {
	t.Helper()
	var out []chineseText
	walkLessonStrings(t, func(where, s string) {
		for _, loc := range []string{"zh-CN", "zh-TW"} {
			if strings.HasSuffix(where, "."+loc) {
				out = append(out, chineseText{loc, where, s})
			}
		}
	})
	return out
}

// walkLessonStrings calls f for every string of every lesson file, with
// its path under the file's name (walkStrings).
func walkLessonStrings(t *testing.T, f func(where, s string)) {
	t.Helper()
	for _, n := range lessontest.Files(t) {
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := yaml.Unmarshal(src, &doc); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		walkStrings(doc, filepath.Base(n), f)
	}
}

// walkStrings calls f for every string in v with its path (keys joined by
// dots, list indexes in brackets), in a stable order.
func walkStrings(v any, where string, f func(where, s string)) {
	switch v := v.(type) {
	case string:
		f(where, v)
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkStrings(v[k], where+"."+k, f)
		}
	case []any:
		for i, e := range v {
			walkStrings(e, fmt.Sprintf("%s[%d]", where, i), f)
		}
	}
}

// findForbidden reports the forbidden words of form in text, after blanking
// the allowed phrases. A word of ASCII letters matches only as a whole word.
func findForbidden(form glossaryForm, text string) []string {
	for _, a := range form.Allow {
		text = strings.ReplaceAll(text, a, "□")
	}
	var hits []string
	for _, w := range form.Forbidden {
		for i := 0; ; {
			j := strings.Index(text[i:], w)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(w)
			// A boundary counts only at an edge where w itself ends in a
			// word character: "hold #" matches "hold #3" too.
			if !isASCIIWord(w) || ((!wordByte(w, 0) || !wordByte(text, start-1)) && (!wordByte(w, len(w)-1) || !wordByte(text, end))) {
				hits = append(hits, w)
				break
			}
			i = end
		}
	}
	return hits
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// wordByte tells whether text[i] exists and continues a Latin word or an
// identifier (letters, digits, _ . { } < > are part of names like {{.ID}}, <thread id>
// is prose and is checked).
func wordByte(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestGlossary checks every zh-CN and zh-TW text of the catalogue and of
// every lesson: none may use a variant the glossary replaces.
func TestGlossary(t *testing.T) {
	g := loadGlossary(t)
	texts := append(catalogueTexts(t), lessonTexts(t)...)
	if len(texts) < 100 {
		t.Fatalf("only %d Chinese texts found: the walk misses files", len(texts))
	}
	english := englishTexts(t)
	for _, term := range g.Terms {
		en := glossaryForm{Term: term.En, Forbidden: term.EnForbidden}
		for _, tx := range english {
			for _, w := range findForbidden(en, tx.text) {
				t.Errorf("%s (en): %q names %s misleadingly: %s", tx.where, w, term.En, tx.text)
			}
		}
		for _, loc := range []string{"zh-CN", "zh-TW"} {
			form := term.ZhCN
			if loc == "zh-TW" {
				form = term.ZhTW
			}
			if form.Term == "" {
				t.Errorf("glossary: %q has no %s term", term.En, loc)
			}
			for _, tx := range texts {
				if tx.locale != loc {
					continue
				}
				for _, w := range findForbidden(form, tx.text) {
					t.Errorf("%s (%s): %q instead of %q (%s): %s", tx.where, loc, w, form.Term, term.En, tx.text)
				}
			}
		}
	}
}

// TestGlossaryFindsForbidden keeps the matcher honest: it catches a variant,
// honours allowed phrases and whole words, and leaves placeholders alone.
func TestGlossaryFindsForbidden(t *testing.T) {
	user := glossaryForm{Term: "使用者", Forbidden: []string{"用戶"}, Allow: []string{"用戶端"}}
	id := glossaryForm{Term: "ID", Forbidden: []string{"id"}}
	hold := glossaryForm{Term: "grant #N", Forbidden: []string{"hold #"}}
	for _, c := range []struct {
		form glossaryForm
		text string
		want int
	}{
		{user, "每個用戶都看得到", 1},
		{user, "用戶端逾時後會重試", 0},
		{user, "用戶端把回覆交給用戶", 1},
		{id, "請求 id 是 7", 1},
		{id, "請求 ID 是 {{.ID}}，欄位 owner_id", 0},
		{id, "<執行緒 id>", 1},
		{id, "idle 與 valid", 0},
		{hold, "took a write from hold #3", 1},
		{hold, "from hold #{{.Hold}}", 1},
		{hold, "from grant #3", 0},
	} {
		if got := len(findForbidden(c.form, c.text)); got != c.want {
			t.Errorf("findForbidden(%v, %q) = %d hits, want %d", c.form.Forbidden, c.text, got, c.want)
		}
	}
}

// TestGlossaryNewTerms checks that the glossary holds the terms of issue
// 39's new lessons (Cluster, Redlock's rules, fencing counters) and the
// terms the course once wrote two ways, and that each catches the variant
// it replaces.
func TestGlossaryNewTerms(t *testing.T) {
	g := loadGlossary(t)
	for _, c := range []struct{ en, loc, bad string }{
		{"hash slot", "zh-CN", "键落在不同的散列槽里"},
		{"hash slot", "zh-TW", "鍵落在不同的哈希槽裡"},
		{"hash tag", "zh-TW", "同一個哈希標籤"},
		{"unlock latch", "zh-CN", "这次调用的门闩键"},
		{"validity time", "zh-TW", "A 的有效時長"},
		{"clock drift", "zh-CN", "时钟偏移的余量"},
		{"fencing counter", "zh-TW", "圍欄計數器從 1 開始"},
		{"row version", "zh-TW", "行版本檢查"},
		// One term per concept across the course (issue 39, left by the
		// fresh-eyes review): 修訂號 not 修訂版號, the resource's token
		// check 核对 / 核對, acquiring a lock 获取锁 / 取得鎖.
		{"revision", "zh-TW", "共識儲存的修訂版號"},
		{"revision", "zh-CN", "共识存储的修订版号"},
		{"check of a fencing token", "zh-CN", "资源检查 A 的栅栏令牌"},
		{"check of a fencing token", "zh-CN", "由存储一方校验令牌"},
		{"check of a fencing token", "zh-TW", "被保護的資源不檢查柵欄令牌"},
		{"check of a fencing token", "zh-TW", "由儲存端驗證令牌"},
		{"check-then-write", "zh-TW", "「先檢查、後寫入」的資源"},
		{"check / validate", "zh-CN", "释放必须检查获锁令牌"},
		{"acquire (verb", "zh-CN", "B 拿到锁：令牌为 2"},
		{"acquire (verb", "zh-CN", "三个里拿到两个"},
		{"acquire (verb", "zh-TW", "B 拿到鎖：令牌為 2"},
		{"acquire (verb", "zh-TW", "鎖是空閒的，拿到了它"},
		{"acquire (verb", "zh-CN", "一旦别的持有者拿走了锁"},
		{"acquire (verb", "zh-TW", "A 拿下了節點 1 和 2"},
	} {
		var form *glossaryForm
		for i := range g.Terms {
			if strings.HasPrefix(g.Terms[i].En, c.en) {
				form = &g.Terms[i].ZhCN
				if c.loc == "zh-TW" {
					form = &g.Terms[i].ZhTW
				}
			}
		}
		if form == nil {
			t.Errorf("glossary: no term %q", c.en)
			continue
		}
		if len(findForbidden(*form, c.bad)) == 0 {
			t.Errorf("glossary %q (%s): %q is not caught", c.en, c.loc, c.bad)
		}
	}
}
