package web

import (
	"lockstep/sim"
	"lockstep/templates"
)

// courseKinds are the closing section of the course page (issue 16 section
// 4): the four kinds of failure the course shows, each with the course
// lessons that show it failing and those that show its fix, by lesson id.
// Every course lesson is in one kind (TestCourseMapCoversTheCourse); the
// texts are the catalogue's Kind<ID>, Kind<ID>What and Kind<ID>Fix.
var courseKinds = []struct {
	id              string
	failures, fixes []string
}{
	{"Identity", []string{"instance-owner", "owner-reused", "unlock-other-thread", "shared-context-concurrent", "lost-context", "lost-context-self-block", "unlock-timeout-thread-reused", "unbalanced-release", "threadlocal-left-on-pooled-thread", "context-confusion"}, []string{"nested-reentry"}},
	{"Atomicity", []string{"setnx-del", "get-then-del", "nil-read-as-false", "nested-after-expiry-silent", "retried-unlock", "acquire-reply-lost-count", "acquire-reply-lost-token", "unlock-error-count-diverges", "cluster-hash-tag"}, []string{"nested-after-expiry-lost", "idempotent-unlock"}},
	{"Time", []string{"missed-release", "choosing-the-lease", "stale-owner-unfenced", "nested-after-takeover-busy", "local-count-expiry", "nested-shortens-lease", "watchdog-renewal", "watchdog-outlives-task", "renewal-timeout-silent", "long-script-blocks", "clock-jump", "fencing-counter-expires"}, []string{"stale-owner", "fencing-counter-durable"}},
	{"Replication", []string{"failover", "wait-not-enough", "redlock-restart", "min-replicas-waitaof", "redlock-failed-majority", "redlock-node-clock-jump"}, nil},
}

// kleppmannURL is the article the efficiency-versus-correctness part
// retells in Lockstep's own words.
const kleppmannURL = "https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html"

// courseMap is the closing section in t's language for the lessons served
// (a kind names only the lessons the server has, by number and title).
func (s *Server) courseMap(t *translator, loc sim.Locale) templates.CourseMap {
	byID := map[string]templates.CourseMapLesson{}
	for i, l := range s.lessons {
		byID[l.ID] = templates.CourseMapLesson{Label: lessonLabel(l, i), Title: l.Title.In(loc), URL: lessonURL(l.ID, 0, loc, false)}
	}
	pick := func(ids []string) []templates.CourseMapLesson {
		var out []templates.CourseMapLesson
		for _, id := range ids {
			if l, ok := byID[id]; ok {
				out = append(out, l)
			}
		}
		return out
	}
	m := templates.CourseMap{
		Heading: t.T("MapHeading"), Intro: t.T("MapIntro"), FailuresLbl: t.T("MapFailures"), FixLbl: t.T("MapFix"),
		PurposeHeading: t.T("PurposeHeading"), Purpose: paragraphs(t.T("PurposeText")),
		SourceText: t.T("PurposeSource"), SourceURL: kleppmannURL,
	}
	for _, k := range courseKinds {
		m.Kinds = append(m.Kinds, templates.CourseKind{
			ID: k.id, Name: t.T("Kind" + k.id), What: t.T("Kind" + k.id + "What"),
			Failures: pick(k.failures), Fix: t.T("Kind" + k.id + "Fix"), Fixes: pick(k.fixes),
		})
	}
	return m
}
