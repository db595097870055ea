// Package web serves Lockstep's browser player: it routes every address
// (server.go), serves the course page, one player page per lesson, the
// interview and drill pages, the class page and /join, and the websocket
// (/ws) whose sessions drive the lesson runs of package sim, one per
// connection (session.go, client.go: one reader, one writer and the
// session's goroutine that owns the run). The pages are rendered by the
// templ components of package templates from the view models of package
// view, in the request's language (lang=, else Accept-Language).
//
// The pages and messages of other concerns are packages of their own,
// which web routes and for which the Server is the Host (pages.go,
// class.go): the classroom's transport (classserve), "Your lock"
// (ownlock), the Search page and its searches (searchpage), explore
// mode's pages (explorepage); the net/http plumbing (host names, client
// addresses, session table, fair work gate, compression, batched writes)
// is package webnet.
//
// docs/web.md describes what a browser or a script sees: every address,
// the host names answered, the websocket protocol (messages, error codes,
// close codes) and the limits, with the Config field of each.
package web
