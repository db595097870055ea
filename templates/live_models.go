package templates

// LivePage is the live page (/live, package live): a real application's
// locks seen through the proxy, under the site's header.
type LivePage struct {
	Site
	// T renders the page's "live.ui.*" message id with parameters (pairs
	// of name, value) in the page's language.
	T     func(id string, kv ...any) string
	Title string
	Intro string
	// WS is the page's websocket address, with its language.
	WS string
	// Texts are the strings the page's script writes (JSON, by id).
	Texts string
	// Fixed: -locks named the lock keys (Globs), so none are ticked here.
	Fixed bool
	Globs []string
	// Diagram is the player's state diagram, drawn for no lock yet; the
	// script moves its current state as lock states arrive, along Edges
	// (JSON: seed 001's transitions, id, from and to).
	Diagram DiagramView
	Edges   string
}
