package templates

import "context"

// Notice is a note at the top of a page's main content about its own address: a query
// parameter the page could not use as given (a step past the lesson's end,
// a language the site does not speak, a drill level that does not exist),
// what the valid values are and what the page shows instead. Param is the
// parameter's name (the notice's data-param), Text the note in the page's
// language.
type Notice struct {
	Param string
	Text  string
}

// noticesKey is the context key of a request's notices.
type noticesKey struct{}

// WithNotices returns ctx carrying ns after the notices ctx already
// carries. Every page rendered with such a context shows them first in its
// main landmark, under the site header (pageNotices): the server adds the language notice to every
// request (web.Server.ServeHTTP), a page's handler the notices of its own
// parameters, so that no page drops a bad parameter without a word.
func WithNotices(ctx context.Context, ns ...Notice) context.Context {
	if len(ns) == 0 {
		return ctx
	}
	old := NoticesOf(ctx)
	all := make([]Notice, 0, len(old)+len(ns))
	return context.WithValue(ctx, noticesKey{}, append(append(all, old...), ns...))
}

// NoticesOf are the notices ctx carries, in the order they were added;
// nil when none.
func NoticesOf(ctx context.Context) []Notice {
	ns, _ := ctx.Value(noticesKey{}).([]Notice)
	return ns
}
