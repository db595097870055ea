package templates

import (
	"net/url"

	"github.com/a-h/templ"

	"lockstep/sim"
)

// DesignsPage is the page that compares the lock designs (/designs, issue
// 39): one row per built-in variant, built by package designs.
type DesignsPage struct {
	Site
	CSS string // the page's own stylesheet (static/designs.css), its pinned URL
	T   DesignsTexts
	// SourceLabel is the label of each row's source ("Source").
	SourceLabel string
	Rows        []DesignRow
}

// DesignsTexts are the page's headings.
type DesignsTexts struct {
	Heading, Intro                                                                string
	ColDesign, ColOwner, ColCount, ColReplies, ColPartial, ColRenewal, ColFencing string
}

// DesignRow is one lock design: every cell a text in the page's language.
type DesignRow struct {
	Name   string       // the variant's name
	Anchor string       // the row's id, DesignAnchor(Name)
	Source []SourcePart // where its semantics come from, the seeds by title
	Owner  string
	Count  string // where the hold count is kept
	// Replies are the scripts' reply maps, one per script the variant runs.
	Replies     []DesignReplies
	RepliesNote string // what the patterns do not say ("" when nothing)
	Partial     string // what a partial release does to the lease
	Renewal     string
	Fencing     string
}

// DesignReplies is one script's replies: its role ("acquire", localized)
// and one line per reply pattern ("nil → BUSY").
type DesignReplies struct {
	Script string
	Shape  string // an array reply's elements, "" for a single value
	Lines  []string
}

// DesignAnchor is the id of variant name's row on the designs page.
func DesignAnchor(name string) string { return "design-" + name }

// DesignURL is variant name's row on the designs page in language lang,
// or "" for a variant that has no row (a learner's own lock).
func DesignURL(name, lang string) templ.SafeURL {
	if _, ok := sim.BuiltinVariantDef(name); !ok {
		return ""
	}
	return templ.SafeURL("/designs?lang=" + url.QueryEscape(lang) + "#" + DesignAnchor(name))
}

// currentLang is the code of the current language among langs ("en" when
// none is marked).
func currentLang(langs []LangOption) string {
	for _, l := range langs {
		if l.Current {
			return l.Code
		}
	}
	return "en"
}
