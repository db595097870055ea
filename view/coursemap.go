package view

import (
	"strings"

	"lockstep/templates"
)

// CourseKind is one kind of failure the course shows (issue 16 section 4):
// its id (the catalogue's Kind<ID>, Kind<ID>What and Kind<ID>Fix), the
// course lessons, by lesson id, that show it failing and those that show
// its fix.
type CourseKind struct {
	ID              string
	Failures, Fixes []string
}

// CourseKinds are the course page's closing section's kinds, in order.
// Every course lesson is in one kind (web's TestCourseMapCoversTheCourse).
func CourseKinds() []CourseKind {
	return []CourseKind{
		{"Identity", []string{"instance-owner", "owner-reused", "unlock-other-thread", "shared-context-concurrent", "lost-context", "lost-context-self-block", "unlock-timeout-thread-reused", "unbalanced-release", "threadlocal-left-on-pooled-thread", "context-confusion"}, []string{"nested-reentry"}},
		{"Atomicity", []string{"setnx-del", "get-then-del", "nil-read-as-false", "nested-after-expiry-silent", "retried-unlock", "acquire-reply-lost-count", "acquire-reply-lost-token", "unlock-error-count-diverges", "cluster-hash-tag"}, []string{"nested-after-expiry-lost", "idempotent-unlock"}},
		{"Time", []string{"missed-release", "choosing-the-lease", "stale-owner-unfenced", "nested-after-takeover-busy", "local-count-expiry", "nested-shortens-lease", "watchdog-renewal", "watchdog-outlives-task", "renewal-timeout-silent", "renewal-after-takeover", "long-script-blocks", "clock-jump", "fencing-counter-expires", "fencing-check-then-write"}, []string{"stale-owner", "fencing-counter-durable", "fencing-compare-and-write"}},
		{"Replication", []string{"failover", "wait-not-enough", "redlock-restart", "min-replicas-waitaof", "redlock-failed-majority", "redlock-node-clock-jump"}, nil},
	}
}

// KleppmannURL is the article the efficiency-versus-correctness part
// retells in Lockstep's own words.
const KleppmannURL = "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html"

// CourseMap is the course page's closing section in t's language. served
// maps the id of each lesson the server has to its entry (label, title and
// address in t's language); a kind names only those lessons.
func CourseMap(t Texts, served map[string]templates.CourseMapLesson) templates.CourseMap {
	pick := func(ids []string) []templates.CourseMapLesson {
		var out []templates.CourseMapLesson
		for _, id := range ids {
			if l, ok := served[id]; ok {
				out = append(out, l)
			}
		}
		return out
	}
	m := templates.CourseMap{
		Heading: t.T("MapHeading"), Intro: t.T("MapIntro"), FailuresLbl: t.T("MapFailures"), FixLbl: t.T("MapFix"),
		PurposeHeading: t.T("PurposeHeading"), Purpose: Paragraphs(t.T("PurposeText")),
		SourceText: t.T("PurposeSource"), SourceURL: KleppmannURL,
	}
	for _, k := range CourseKinds() {
		m.Kinds = append(m.Kinds, templates.CourseKind{
			ID: k.ID, Name: t.T("Kind" + k.ID), What: t.T("Kind" + k.ID + "What"),
			Failures: pick(k.Failures), Fix: t.T("Kind" + k.ID + "Fix"), Fixes: pick(k.Fixes),
		})
	}
	return m
}

// Paragraphs splits a catalogue text into its paragraphs (blank-line
// separated), trimmed, empty ones dropped.
func Paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
