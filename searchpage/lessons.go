package searchpage

import (
	"lockstep/sim"
)

// lessonSearches returns the course lessons whose failure the search finds,
// each with the invariants of its own that a search of its shape breaks
// (issue 18, item 6): decided by running, for each lesson, the course
// search file of its variant with its fencing and its actors (2 or 3)
// against each invariant the lesson shows (expect_violation), and keeping
// those found. Not listed: what no such search finds within depth 8
// (owner-reused's wrong-owner-release, retried-unlock's and
// idempotent-unlock's count-mismatch, failover's stale-write: they need a
// move the search does not make). TestLessonSearchLinks runs each link's
// shape and checks it breaks them.
func lessonSearches() map[string][]string {
	return map[string][]string{
		"missed-release":             {"leaked-hold"},
		"stale-owner":                {"overlapping-holders"},
		"setnx-del":                  {"overlapping-holders", "wrong-owner-release"},
		"get-then-del":               {"overlapping-holders", "wrong-owner-release"},
		"lost-context-self-block":    {"overlapping-holders"},
		"instance-owner":             {"overlapping-holders", "wrong-owner-release"},
		"owner-reused":               {"overlapping-holders", "count-mismatch"},
		"stale-owner-unfenced":       {"overlapping-holders", "stale-write"},
		"nested-after-takeover-busy": {"overlapping-holders"},
		"nested-after-expiry-silent": {"overlapping-holders", "count-mismatch"},
		"local-count-expiry":         {"overlapping-holders"},
		"nested-shortens-lease":      {"overlapping-holders"},
		"watchdog-renewal":           {"overlapping-holders"},
		"watchdog-outlives-task":     {"leaked-hold"},
		"retried-unlock":             {"overlapping-holders"},
		"clock-jump":                 {"overlapping-holders", "stale-write"},
		"failover":                   {"overlapping-holders"},
	}
}

// lessonSearch is the Search page's link of lesson l (its variant, fencing,
// actors between 2 and 3, and the invariants lessonSearches lists), and
// false for a lesson it does not list.
func lessonSearch(l *sim.Lesson) (Link, bool) {
	invs, ok := lessonSearches()[l.ID]
	if !ok {
		return Link{}, false
	}
	return Link{Variant: l.Variant, Actors: min(3, max(2, len(l.Actors))), Fencing: l.Fencing, Invariants: invs, From: l.ID}, true
}
