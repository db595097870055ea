package live

import (
	"context"
	"net/http"
	"sort"

	"github.com/gorilla/websocket"

	"lockstep/catalog"
	"lockstep/proxy"
	"lockstep/sim"
	"lockstep/static"
)

// DefaultMaxConns is Config.MaxConns' default: live pages open at once.
const DefaultMaxConns = 8

// Proxy is what the live page reads and drives: *proxy.Proxy.
type Proxy interface {
	Faults
	Snapshot() proxy.Snapshot
	Subscribe(buf int) *proxy.Subscription
}

// Config configures the live page's handler.
type Config struct {
	// Proxy is the running proxy the page shows. Required.
	Proxy Proxy
	// Catalog renders the page, the findings and the errors. Required.
	Catalog *catalog.Catalog
	// Locale picks the request's language (the server's negotiation:
	// ?lang=, cookie, Accept-Language). Nil means English.
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

// texts are the page's strings the script uses, by id without "live.ui.".
var scriptTexts = []string{"connecting", "connected", "disconnected", "resync", "redis-lane", "no-lanes",
	"no-findings", "locks-none", "reason.set-nx", "reason.script-ttl", "done", "saved", "missing",
	"download-lesson", "download-variant", "reply-lost", "library", "closed",
	"fault.pause", "fault.lose-reply", "fault.delay", "fault.expire", "fault.restart", "fault.close"}

// servePage renders the live page in the request's language.
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request) {
	loc := h.locale(r)
	t := func(id string, kv ...any) string { return h.cfg.Catalog.T(loc, "live.ui."+id, kv...) }
	snap := h.cfg.Proxy.Snapshot()
	texts := map[string]string{}
	for _, id := range scriptTexts {
		texts[id] = t(id, "What", "{what}")
	}
	langs := make([]langLink, 0, 3)
	for _, l := range h.cfg.Catalog.Locales() {
		langs = append(langs, langLink{Code: string(l), URL: "/live?lang=" + string(l), Current: l == loc})
	}
	sort.Slice(langs, func(i, j int) bool { return langs[i].Code < langs[j].Code })
	m := pageModel{
		Lang: string(loc), Title: t("title"), Intro: t("intro", "Listen", snap.Listen, "Upstream", snap.Upstream),
		CSS: static.URL("/static/", "app.css"), LiveCSS: static.URL("/static/", "live.css"), JS: static.URL("/static/", "main.js"), Icon: static.URL("/static/", "icon.svg"),
		Langs: langs, Texts: texts, T: t, Fixed: len(snap.LockGlobs) > 0, Globs: snap.LockGlobs,
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = page(m).Render(context.WithoutCancel(r.Context()), w)
}

// pageModel is what page renders.
type pageModel struct {
	Lang, Title, Intro     string
	CSS, LiveCSS, JS, Icon string
	Langs                  []langLink
	Texts                  map[string]string
	T                      func(id string, kv ...any) string
	Fixed                  bool
	Globs                  []string
}

type langLink struct {
	Code, URL string
	Current   bool
}
