package searchpage

import "lockstep/search"

// maxSearchList bounds each list of a search message (moves, advance_ms,
// invariants) before anything is built from it (issue 37, item 6: 9,000
// advance_ms values were accepted, each a branch of every state): the
// validator's own bounds (each move and invariant once,
// search.MaxAdvance clock moves) are all a search can use.
const maxSearchList = search.MaxAdvance

// checkSearchLists refuses a search request with a list longer than
// maxSearchList, naming the field (error code bad-search).
func checkSearchLists(req *Request) error {
	if req == nil {
		return nil
	}
	for _, l := range []struct {
		field string
		n     int
	}{{"moves", len(req.Moves)}, {"advance_ms", len(req.AdvanceMS)}, {"invariants", len(req.Invariants)}} {
		if l.n > maxSearchList {
			e := perr(ErrCodeBadSearch, "search-list", "Field", l.field, "Max", maxSearchList, "Got", l.n)
			e.Fields = []string{l.field}
			return e
		}
	}
	return nil
}
