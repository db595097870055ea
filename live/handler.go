package live

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gorilla/websocket"

	"lockstep/catalog"
	"lockstep/proxy"
	"lockstep/sim"
	"lockstep/static"
	"lockstep/templates"
	"lockstep/view"
)

// DefaultMaxConns is Config.MaxConns' default: live pages open at once.
const DefaultMaxConns = 8

// Proxy is what the live page reads and drives: *proxy.Proxy.
type Proxy interface {
	Faults
	Snapshot() proxy.Snapshot
	// Window is the snapshot a page is sent (the newest events only);
	// EventsBefore the events a page scrolled back asks for.
	Window() proxy.Snapshot
	EventsBefore(seq uint64, n int) ([]proxy.Event, uint64)
	Suggested() (map[string]string, []string)
	Subscribe(buf int) *proxy.Subscription
}

// Config configures the live page's handler.
type Config struct {
	// Proxy is the running proxy the page shows. Required.
	Proxy Proxy
	// Catalog renders the page, the findings and the errors. Required.
	Catalog *catalog.Catalog
	// Site gives the page of a request the site's header (navigation,
	// language picker linking /live in each language, backend badge, the
	// assets) and the player's texts in the request's language, which
	// draw the state diagram as the player does: the web server's
	// (web.Server.LiveSite). Required for GET /live.
	Site func(*http.Request) (templates.Site, view.Texts)
	// Locale picks the request's language (the server's negotiation:
	// ?lang=, cookie, Accept-Language) for the websocket. Nil means English.
	Locale func(*http.Request) sim.Locale
	// MaxConns bounds the live websockets open at once (the server's
	// -max-live); 0 means DefaultMaxConns. One over it is closed with code 1013.
	MaxConns int
	// CheckOrigin decides which pages may open the websocket; nil means
	// same origin only (gorilla/websocket's default).
	CheckOrigin func(*http.Request) bool
}

// Handler serves GET /live (the page) and GET /live/ws (its websocket).
type Handler struct {
	cfg      Config
	mux      *http.ServeMux
	slots    chan struct{} // a token per open live websocket
	upgrader websocket.Upgrader
}

// New returns the live page's handler for cfg.
func New(cfg Config) *Handler {
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	h := &Handler{cfg: cfg, slots: make(chan struct{}, cfg.MaxConns),
		upgrader: websocket.Upgrader{CheckOrigin: cfg.CheckOrigin}}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /live", h.servePage)
	h.mux.HandleFunc("GET /live/ws", h.serveWS)
	return h
}

// ServeHTTP routes /live and /live/ws.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

func (h *Handler) locale(r *http.Request) sim.Locale {
	if h.cfg.Locale == nil {
		return "en"
	}
	return h.cfg.Locale(r)
}

// scriptTexts are the page's strings the script uses, by id without
// "live.ui.".
var scriptTexts = []string{"connecting", "connected", "disconnected", "resync", "redis-lane", "no-lanes",
	"no-findings", "locks-none", "reason.set-nx", "reason.script-ttl", "done", "saved", "missing",
	"download-lesson", "download-variant", "reply-lost", "library", "lock-library", "closed", "open-player", "axis",
	"diagram-none", "older", "fault.pause", "fault.resume", "fault.lose-reply", "fault.delay", "fault.expire", "fault.restart", "fault.close", "skipped", "quiet-closed"}

// servePage renders the live page under the site's header, in the
// request's language.
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Site == nil {
		http.Error(w, "live: the page has no site header (live.Config.Site is required for GET /live)", http.StatusInternalServerError)
		return
	}
	site, tx := h.cfg.Site(r)
	loc := tx.Locale()
	t := func(id string, kv ...any) string { return h.cfg.Catalog.T(loc, "live.ui."+id, kv...) }
	snap := h.cfg.Proxy.Window()
	texts := map[string]string{}
	for _, id := range scriptTexts {
		texts[id] = t(id, "What", "{what}", "Lib", "{lib}")
	}
	for k, v := range diagramTexts(tx) {
		texts[k] = v
	}
	site.Assets.Page = static.URL("/static/", "live.css")
	textsJSON, _ := json.Marshal(texts)
	p := templates.LivePage{
		Site: site, T: t, Title: t("title"), Intro: t("intro", "Listen", snap.Listen, "Upstream", upstreamName(t, snap.Upstream)),
		WS: "/live/ws?lang=" + string(loc), Texts: string(textsJSON), Fixed: len(snap.LockGlobs) > 0, Globs: snap.LockGlobs,
		Diagram: idleDiagram(tx, t("diagram-none")), Edges: diagramEdges(),
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = templates.Live(p).Render(context.WithoutCancel(r.Context()), w)
}

// upstreamName is how the page names the proxy's upstream: the embedded
// Redis in the page's language (proxy.Proxy.Upstream says "embedded"), or
// a real Redis's address as it is.
func upstreamName(t func(id string, kv ...any) string, upstream string) string {
	if upstream == "embedded" {
		return t("upstream-embedded")
	}
	return upstream
}
