package view

import (
	"maps"
	"strings"

	"lockstep/sim"
	"lockstep/templates"
)

// seedTitles maps the file names of the seed documents to the message id of
// a short title of each. Lessons (the source: field of the lesson format)
// and variants (sim.VariantInfo.Source) cite where a scenario comes from by
// these file names, but the documents are not served, so a learner could
// not look one up: the pages show the title in the reader's language
// instead and keep the file name in a title attribute for maintainers. The
// source strings themselves stay as written, since the format is public.
// SeedTitleIDs returns the seeds' file names and the message ids of their
// titles (a copy).
func SeedTitleIDs() map[string]string { return maps.Clone(seedTitles) }

var seedTitles = map[string]string{
	"000_ababaab3e824e250.txt": "SeedNodeContext",
	"001_5402deabadbfda6d.txt": "SeedInterviewCard",
	"004_9ef5ee932af18c81.txt": "SeedJavaThreadLocal",
}

// SourceParts is a source as the page shows it in t's language: each seed
// file name becomes a part with the seed's title, followed by the text up to
// the next seed as written ("(follow-up question 1)", or ", " between two
// seeds); text that cites no seed (a URL, "Redisson RLock") is a part of its
// own. nil for an empty source.
func SourceParts(t Texts, src string) []templates.SourcePart { return SourcePartsBy(t.T, src) }

// SourcePartsBy is SourceParts with the seeds' titles from tr (a
// catalogue's T in one language), for pages without a Texts (package
// designs).
func SourcePartsBy(tr func(id string, kv ...any) string, src string) []templates.SourcePart {
	var out []templates.SourcePart
	for src != "" {
		i, name := nextSeed(src)
		if i != 0 {
			text := src
			if i > 0 {
				text = src[:i]
			}
			out = append(out, templates.SourcePart{Rest: text})
			src = src[len(text):]
			continue
		}
		src = src[len(name):]
		j, _ := nextSeed(src)
		if j < 0 {
			j = len(src)
		}
		out = append(out, templates.SourcePart{Title: tr(seedTitles[name]), Seed: name, Rest: src[:j]})
		src = src[j:]
	}
	return out
}

// LessonSource is lesson l's source as its page shows it in t's language:
// the catalogue's LessonSource<Camel(ID)> (catalog/ui.*.toml) when it has
// one, else the lesson file's own source, each through SourceParts. The
// lesson format's source field is one string, written in English ("(a
// thread id alone is not unique …)", "Redisson RLock lock watchdog"), so a
// course lesson whose source says more than the seeds it cites has its
// source in the catalogue too, in every language, the seeds by their file
// names; the English text is the file's (web's TestLessonSourceInPageLanguage).
// A lesson the catalogue does not know (an import, a drill) shows its source
// as written.
func LessonSource(t Texts, l *sim.Lesson) []templates.SourcePart {
	if s := t.Maybe("LessonSource" + Camel(l.ID)); s != "" {
		return SourceParts(t, s)
	}
	return SourceParts(t, l.Source)
}

// sourceText is a source in one line of plain text, for places that cannot
// hold markup (an <option>): the seeds' titles with the text around them,
// and the file names of the seeds it cites, joined by ", " ("" for none).
func SourceText(t Texts, src string) (text, seeds string) {
	var b strings.Builder
	var names []string
	for _, p := range SourceParts(t, src) {
		if p.Seed != "" {
			b.WriteString(p.Title)
			names = append(names, p.Seed)
		}
		b.WriteString(p.Rest)
	}
	return b.String(), strings.Join(names, ", ")
}

// nextSeed is the first seed file name in s and where it starts, or -1.
func nextSeed(s string) (int, string) {
	at, first := -1, ""
	for name := range seedTitles {
		if i := strings.Index(s, name); i >= 0 && (at < 0 || i < at) {
			at, first = i, name
		}
	}
	return at, first
}
