package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/classbus"
	"lockstep/classroom"
	"lockstep/classserve"
	"lockstep/designs"
	"lockstep/docs"
	"lockstep/explorepage"
	"lockstep/ownlock"
	"lockstep/searchpage"
	"lockstep/sim"
	"lockstep/static"
	"lockstep/templates"
	"lockstep/view"
	"lockstep/webnet"
)

// Defaults of Config.
const (
	DefaultMaxSessions = 100
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultReadLimit fits a load message with a share code of up to
	// explore.MaxCodeLen bytes.
	DefaultReadLimit = 64 << 10
	// DefaultMessageRate is the sustained rate of client messages a
	// connection may send, in messages per second.
	DefaultMessageRate = 50
	// DefaultMessageBurst is how many client messages a connection may send
	// at once above DefaultMessageRate.
	DefaultMessageBurst = 100
	// DefaultMaxSessionsPerAddr bounds the sessions of one client address:
	// a classroom behind one NAT address fits, one script cannot take
	// every session.
	DefaultMaxSessionsPerAddr = 20
	// DefaultIdleGrace is how long a session must have been idle before a
	// new connection to a full server may close it to take its place.
	DefaultIdleGrace = 2 * time.Minute
	// DefaultBodyTimeout bounds reading an upload's body (POST
	// /explore/import): 256 KiB in 20 s is 13 KiB/s, slower than any
	// network a classroom has.
	DefaultBodyTimeout = 20 * time.Second
	// DefaultFairRate and DefaultFairBurst are a connection's fair share
	// of a busy server, in messages per second and at once: a learner
	// stepping, or a presenter's remote, stays within it.
	DefaultFairRate  = 10
	DefaultFairBurst = 30
)

// Config configures a Server.
type Config struct {
	// Live serves GET /live and /live/ws, the live page of the proxy
	// (package live), when the server runs with -proxy; nil leaves them
	// out (404) and the header without its link.
	Live http.Handler
	// Backend opens one store per run (a session's, a page's, an export's).
	// Required: RedisBackend(be) for package backend's Redis.
	Backend Backend
	// Lessons is the course in order; lesson ids must be unique.
	Lessons []*sim.Lesson
	// Catalog is the message catalogue the pages speak: its locales are the
	// languages offered. Nil means the embedded one (catalog.New()).
	Catalog *catalog.Catalog
	// MaxSessions bounds the websocket sessions open at once; a connection
	// over the bound gets an error message and close code 1013.
	MaxSessions int
	// IdleTimeout closes a session that sent nothing for this long (close
	// code 4000), deleting its run's keys.
	IdleTimeout time.Duration
	// ReadLimit bounds a client message in bytes; a longer one closes the
	// connection with code 1009 and a reason that says so.
	ReadLimit int64
	// MessageRate bounds the client messages of one connection, in messages
	// per second sustained, with MessageBurst more at once; 0 means
	// DefaultMessageRate. A message over the bound is not carried out; the
	// first of a run is answered with an error message of code
	// rate-limited, and a connection that sends MessageBurst such messages
	// in a row is closed with code 1008. The bound is per connection, so a flood slows no one else.
	MessageRate float64
	// MessageBurst is the burst of MessageRate, in messages; 0 means
	// DefaultMessageBurst.
	MessageBurst int
	// MaxSessionsPerAddr bounds the sessions open at once from one client
	// address (the peer's IP, an IPv6 address by its /64, every loopback
	// address as one, or for a peer in
	// TrustedProxies, the client it names: see webnet.ClientAddr); 0 means
	// DefaultMaxSessionsPerAddr. A connection over it gets an error message
	// of code busy and close code 1013.
	MaxSessionsPerAddr int
	// IdleGrace: when MaxSessions are open, a new connection closes the
	// session that has been idle longest, if it has been idle at least this
	// long (close code 4000, a reason that says why), and takes its place;
	// 0 means DefaultIdleGrace.
	IdleGrace time.Duration
	// BodyTimeout bounds reading a request body (an import's upload or
	// paste), from the start of the request; a body not read by then is
	// answered with 408 and the connection closed. 0 means
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxBusy bounds the client messages (and play steps) carried out at
	// once, server-wide; 0 means runtime.GOMAXPROCS. When every slot is
	// taken, a connection within its fair share (FairRate, FairBurst)
	// waits for the next free one, first in line, and a message of one over
	// it is not carried out: an error of code rate-limited says the server
	// is busy (webnet.WorkGate). 0 for FairRate and FairBurst means
	// DefaultFairRate and DefaultFairBurst.
	MaxBusy   int
	FairRate  float64
	FairBurst int
	// Addr is the address the server listens on ("host:port", as -addr),
	// which decides the Host headers it answers (webnet.HostRule): "" or a
	// loopback address answers only loopback names; another address its
	// own name and any IP address literal. AllowedHosts are host names
	// (without port) answered as well, such as a reverse proxy's public
	// name. Any other Host gets 421 Misdirected Request.
	Addr         string
	AllowedHosts []string
	// MaxSearches bounds the Search page's searches running at once,
	// server-wide; a search started over it is refused (error code
	// search-full). 0 means DefaultMaxSearches(): half the cores, at
	// least one. A session runs at most one search at a time (a second is
	// refused, code search-running), and its search ends with it.
	MaxSearches int
	// SearchTimeout and SearchMaxStates bound one search: it stops after
	// this long, or after the depth at which it has seen more distinct
	// states, and reports what it found (search.Config.MaxStates). 0 means
	// DefaultSearchTimeout and DefaultSearchMaxStates.
	SearchTimeout   time.Duration
	SearchMaxStates int
	SearchMaxBytes  int64 // one search's byte budget (search.Config.MaxBytes: 0 is search.DefaultMaxBytes)
	// LockTableTimeout bounds the course table of a learner's own lock, all
	// its lessons together; 0 means ownlock.DefaultLockTableTimeout.
	LockTableTimeout time.Duration
	// LockTableCache is how many own locks' course tables are kept for
	// their page's next view (ownlock.Config.TableCache); 0 means
	// ownlock.DefaultTableCache (64), negative none.
	LockTableCache int
	// SearchWorkers is how many workers one search runs on, each on an
	// embedded Redis of its own (or, when Backend is a real Redis, under a
	// key prefix of its own there); 0 means DefaultSearchWorkers.
	SearchWorkers int
	// ClassBus carries every class message (docs/classroom.md), in one
	// process too; nil means classbus.NewMemory(nil), closed with the
	// server: classes live in the process. A bus shared by several servers
	// lets a student on any of them follow a presenter on any other:
	// classbus.Redis (flag -classroom-redis), which the caller closes after
	// the server's Close.
	ClassBus classbus.Bus
	// ClassIdle ends a class after this long without a move, a question,
	// an answer or a join (its students get the end page), and is the TTL
	// of its state on the bus; 0 means DefaultClassIdle.
	ClassIdle time.Duration
	// ClassJoinRate and ClassJoinBurst bound the joins of class codes that
	// do not exist, per client address, in joins per second and at once
	// (a page of /class/CODE or a class-join message); an address over it
	// is refused (error code class-joins, or 429) until it has a token
	// again. 0 means DefaultClassJoinRate and DefaultClassJoinBurst.
	ClassJoinRate  float64
	ClassJoinBurst int
	// ClassURLs are the addresses students open ("http://192.168.1.20:8080",
	// scheme, host and port, as serve prints them), each shown with
	// "/class/CODE" on the presenter's page; empty means the host the
	// presenter's page was opened at.
	ClassURLs []string
	// ClassPeers are the public base URLs ("https://lockstep-b.example.org",
	// absolute http or https, no path) of the other Lockstep servers that
	// share this server's classes through one ClassBus (serve
	// -classroom-peers, meaningful only with -classroom-redis). A student's
	// page is given them after its own address (data-class-peers), and on
	// losing its websocket walks them in order (static/peers.js); and the
	// websocket accepts a handshake whose Origin is one of them, besides
	// its own Host (classserve.OriginAllowed). Empty: only same-origin pages connect.
	ClassPeers []string
	// AllowCustomScripts lets the scripts of a learner's own lock (a
	// user's variant file, the Explore page's "Your lock") run on the
	// server's Redis when it is a real one (serve -allow-custom-scripts);
	// by default they run only in the server's Lua sandbox
	// (backend.Sandbox: an embedded Redis in a process of its own).
	AllowCustomScripts bool
	// PlainPages serves pages and other answers as they are, where by
	// default an answer of 1 KiB or more is compressed (gzip or zstd, as
	// the request's Accept-Encoding allows: webnet.CompressPages); the static
	// files stay compressed once, at start. For a reverse proxy that
	// compresses itself, and the bench's one-run baseline.
	PlainPages bool
	// ScriptTimeLimit bounds one step of a learner's script, in the sandbox
	// and on a real Redis opened to them (backend.ScriptTimeLimit, 2 s,
	// when 0).
	ScriptTimeLimit time.Duration
	// RunWriteBytes bounds what a learner's scripts may write over one
	// run in the sandbox (backend.SandboxConfig.RunWriteBytes); 0 means
	// backend.MaxRunWriteBytes (2 MiB). A real Redis's bound is its
	// backend.Config's.
	RunWriteBytes int64
	// Logf logs server-side problems; nil discards them.
	Logf func(format string, args ...any)

	// The bounds of issue 37 (docs/security.md; defaults in limits.go).
	Limits
}

// Server serves the course page, the player pages, the static files and the
// websocket. It is an http.Handler; Close ends every session.
type Server struct {
	cfg         Config
	translators *translators // of cfg.Catalog
	mux         *http.ServeMux
	routes      http.Handler // mux, its answers compressed (webnet.CompressPages)
	lessons     []*sim.Lesson
	byID        map[string]*sim.Lesson
	index       map[string]int
	table       *webnet.SessionTable
	frames      frameCache
	upgrader    websocket.Upgrader
	// batchBufs are the writers' batch buffers (webnet.BatchConn).
	batchBufs sync.Pool
	// wire makes a class move's messages into the bytes the server's
	// connections put on the wire (client.Deliver).
	wire  *wireFrames
	hosts webnet.HostRule
	peers []string // Config.ClassPeers as parsePeers returns them
	csp   string   // contentSecurityPolicy of peers
	gate  *webnet.WorkGate
	// searches runs the Search page's searches (package searchpage).
	searches *searchpage.Searches
	ctx      context.Context
	cancel   context.CancelFunc
	// sandbox runs learners' own scripts out of the server's process
	// (backend.Sandbox, openSandbox): its process starts on first use and
	// is killed with the server.
	sandbox *backend.Sandbox
	// locks serves the learners' own locks (package ownlock), explore
	// explore mode's pages (package explorepage).
	locks   *ownlock.Pages
	explore *explorepage.Pages

	// classBus carries the classes (Config.ClassBus); ownBus: the server
	// made it and closes it. classes are the classes whose presenter or
	// students are here (package classserve).
	classBus classbus.Bus
	ownBus   bool
	classes  *classserve.Hub

	mu       sync.Mutex
	closed   bool
	sessions sync.WaitGroup
}

// defaultIfUnset sets *v to def when *v is zero or negative: how Config
// spells "use the default" for its limits.
func defaultIfUnset[T ~int | ~int64 | ~float64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// New returns a Server for cfg; call Close to end its sessions.
func New(cfg Config) (*Server, error) {
	if cfg.Backend == nil {
		return nil, errors.New("web: config has no backend")
	}
	// A zero or negative limit means "the default" (Config documents each).
	defaultIfUnset(&cfg.MaxSessions, DefaultMaxSessions)
	defaultIfUnset(&cfg.IdleTimeout, DefaultIdleTimeout)
	defaultIfUnset(&cfg.ReadLimit, DefaultReadLimit)
	defaultIfUnset(&cfg.MessageRate, DefaultMessageRate)
	defaultIfUnset(&cfg.MessageBurst, DefaultMessageBurst)
	defaultIfUnset(&cfg.MaxSessionsPerAddr, DefaultMaxSessionsPerAddr)
	defaultIfUnset(&cfg.IdleGrace, DefaultIdleGrace)
	defaultIfUnset(&cfg.BodyTimeout, DefaultBodyTimeout)
	defaultIfUnset(&cfg.MaxBusy, runtime.GOMAXPROCS(0))
	defaultIfUnset(&cfg.FairRate, DefaultFairRate)
	defaultIfUnset(&cfg.FairBurst, DefaultFairBurst)
	defaultIfUnset(&cfg.MaxSearches, DefaultMaxSearches())
	defaultIfUnset(&cfg.SearchTimeout, DefaultSearchTimeout)
	defaultIfUnset(&cfg.SearchMaxStates, DefaultSearchMaxStates)
	defaultIfUnset(&cfg.LockTableTimeout, ownlock.DefaultLockTableTimeout)
	defaultIfUnset(&cfg.SearchWorkers, DefaultSearchWorkers)
	defaultIfUnset(&cfg.ClassIdle, DefaultClassIdle)
	defaultIfUnset(&cfg.ClassJoinRate, DefaultClassJoinRate)
	defaultIfUnset(&cfg.ClassJoinBurst, DefaultClassJoinBurst)
	cfg.Limits.setDefaults(cfg.MaxSessions)
	if cfg.Catalog == nil {
		c, err := catalog.New()
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		cfg.Catalog = c
	}
	s := &Server{
		cfg:         cfg,
		translators: newTranslators(cfg.Catalog),
		lessons:     cfg.Lessons,
		byID:        map[string]*sim.Lesson{},
		index:       map[string]int{},
		// CheckOrigin (set below) refuses a handshake whose Origin is
		// neither the Host it was sent to nor one of Config.ClassPeers.
		// Panels are kilobytes of HTML that compress well: permessage-deflate
		// is negotiated when the browser offers it, and used for peers that
		// are not on loopback (webnet.CompressWrites).
		upgrader:  websocket.Upgrader{ReadBufferSize: 1024, WriteBufferSize: 8192, EnableCompression: true},
		batchBufs: sync.Pool{New: webnet.NewBatchBuf},
		hosts:     webnet.NewHostRule(cfg.Addr, cfg.AllowedHosts),
		gate:      webnet.NewWorkGate(cfg.MaxBusy),

		sandbox: backend.NewSandbox(backend.SandboxConfig{TimeLimit: cfg.ScriptTimeLimit, MaxKillsPerAddr: cfg.SandboxKillsPerAddr,
			TimePerAddr: cfg.SandboxTimePerAddr, TimeTotal: cfg.SandboxTimeTotal, RunWriteBytes: cfg.RunWriteBytes}),

		classBus: cfg.ClassBus,
	}
	peers, origins, err := classserve.ParsePeers(cfg.ClassPeers)
	if err != nil {
		return nil, err
	}
	s.peers = peers
	s.upgrader.CheckOrigin = func(r *http.Request) bool { return classserve.OriginAllowed(r, origins) }
	if s.wire, err = newWireFrames(s.upgrader); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	s.csp = contentSecurityPolicy(peers)
	if s.classBus == nil {
		s.classBus, s.ownBus = classbus.NewMemory(nil), true
	}
	id, err := classroom.NewStudentID(nil) // 128 random bits name the server
	if err != nil {
		return nil, fmt.Errorf("web: server id: %w", err)
	}
	for i, l := range cfg.Lessons {
		if s.byID[l.ID] != nil {
			return nil, fmt.Errorf("web: two lessons with id %q", l.ID)
		}
		s.byID[l.ID] = l
		s.index[l.ID] = i
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.classes = s.newClassHub(id)
	s.locks = ownlock.New(ownlock.Config{Host: pageHost{s}, MaxTables: cfg.MaxSearches, TableTimeout: cfg.LockTableTimeout, TableCache: cfg.LockTableCache})
	s.searches = s.newSearches()
	s.explore = explorepage.New(explorepage.Config{Host: exploreHost{pageHost{s}}, CompareTimeout: 2 * runTimeout})
	s.table = webnet.NewSessionTable(cfg.MaxSessions, cfg.MaxSessionsPerAddr, cfg.SessionReserve, cfg.IdleGrace)

	mux := http.NewServeMux()
	// The pages and the websocket, by method and path (net/http patterns).
	for pattern, handler := range map[string]http.HandlerFunc{
		"GET /{$}":                 s.serveCourse,
		"GET /lessons/{id}":        s.servePlayer,
		"GET /diagram.mmd":         s.serveMermaid,
		"GET /interview":           s.serveInterview,
		"GET /interview/60s":       s.serveSixty,
		"GET /drills":              s.serveDrills,
		"GET /explore":             s.explore.ServeExplore,
		"GET /explore/new":         s.explore.ServeNew,
		"POST /explore/import":     s.explore.ServeImport,
		"GET /explore/export.yaml": s.explore.ServeExport("yaml"),
		"GET /explore/export.mmd":  s.explore.ServeExport("mmd"),
		"GET /explore/export.svg":  s.explore.ServeExport("svg"),
		"GET /explore/compare":     s.explore.ServeCompare,
		"GET /explore/lock":        s.locks.ServeLock,
		"POST /explore/lock":       s.locks.ServeLockCheck,
		"GET /explore/lock/open":   s.locks.ServeLockOpen,
		"GET /search":              s.searches.ServeSearch,
		"GET /designs":             designs.New(pageHost{s}).Serve,
		"GET /class/{code}":        s.serveClass,
		"GET /join":                s.serveJoin,
		"GET /ws":                  s.serveWS,
	} {
		mux.HandleFunc(pattern, handler)
	}
	if cfg.Live != nil { // the live page of -proxy (package live)
		mux.Handle("GET /live", cfg.Live)
		mux.Handle("GET /live/ws", cfg.Live)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /static/", http.StripPrefix("/static/", static.Handler()))
	guides, err := docs.Handler(s.serveGuide) // the guides pages link to
	if err != nil {
		return nil, err
	}
	mux.Handle("GET /docs/", http.StripPrefix("/docs", guides))
	mux.HandleFunc("GET /", s.serveNotFound) // every other address
	s.mux = mux
	if s.routes, err = webnet.CompressPages(mux, cfg.PlainPages); err != nil {
		return nil, err
	}
	return s, nil
}

// clientAddr is the address request r is counted under
// (webnet.ClientAddr, trusting Config.TrustedProxies).
func (s *Server) clientAddr(r *http.Request) string {
	return webnet.ClientAddr(r, s.cfg.TrustedProxies)
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// contentSecurityPolicy keeps every request of the page on its own origin
// (no CDN, no inline script), but for the websockets of the class's other
// servers, peers (their ws:// or wss:// origins, Config.ClassPeers).
func contentSecurityPolicy(peers []string) string {
	connect := "'self'"
	for _, p := range peers {
		connect += " " + strings.Replace(p, "http", "ws", 1)
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; " +
		"img-src 'self'; font-src 'self'; connect-src " + connect + "; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", s.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if !s.hosts.Allows(r.Host) {
		s.refuseHost(w, r)
		return
	}
	// The Lua sandbox counts its stops by the client address a step's ctx
	// carries (backend.WithClientAddr).
	r = r.WithContext(backend.WithClientAddr(r.Context(), s.clientAddr(r)))
	s.routes.ServeHTTP(w, s.withParamNotices(r))
}

// Sessions returns the number of open websocket sessions.
func (s *Server) Sessions() int { return s.table.Len() }

// Close ends every session (close code 1001, their runs' keys deleted),
// and refuses new ones. It waits for the sessions to end, up
// to ctx's deadline.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	done := make(chan struct{})
	go func() {
		s.sessions.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("web: sessions still closing: %w", ctx.Err())
	}
	if s.ownBus {
		_ = s.classBus.Close()
	}
	if s.sandbox != nil {
		s.sandbox.Close()
	}
	return err
}

func assets() templates.Assets {
	return templates.Assets{
		CSS:  static.URL("/static/", "app.css"),
		JS:   static.URL("/static/", "main.js"), // it loads the page's modules
		Icon: static.URL("/static/", "icon.svg"),

		Presenter: static.URL("/static/", "presenter.css"),
		NoScript:  static.URL("/static/", "noscript.css"),
	}
}

func writePage(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	// Not ended with the request: a body that timed out (explorepage.Pages.ServeImport)
	// cancels the request's context, and its page must still render.
	if err := c.Render(context.WithoutCancel(r.Context()), &buf); err != nil {
		http.Error(w, "web: render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) serveCourse(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, http.StatusOK, templates.Course(s.coursePage(s.negotiate(r))))
}

// coursePage is the course page in locale loc: the lessons in their groups,
// each card's title, summary and source in loc, and the course map.
func (s *Server) coursePage(loc sim.Locale) templates.CoursePage {
	t := s.tr(loc)
	p := templates.CoursePage{
		Site: s.site(loc, navCourse, func(l sim.Locale) string { return "/?lang=" + string(l) }),
	}
	for i, l := range s.lessons {
		if len(p.Groups) == 0 || (i > 0 && s.lessons[i-1].Group != l.Group) {
			title := ""
			if l.Group != "" {
				title = t.Maybe("Group" + view.Camel(l.Group))
				if title == "" {
					title = l.Group
				}
			}
			p.Groups = append(p.Groups, templates.CourseGroup{Title: title})
		}
		g := &p.Groups[len(p.Groups)-1]
		g.Lessons = append(g.Lessons, templates.CourseLesson{
			Number: i + 1, Label: lessonLabel(l, i), ID: l.ID, Title: l.Title.In(loc), Summary: strings.TrimSpace(l.Summary.In(loc)),
			Variant: l.Variant, Source: view.LessonSource(t, l), Fencing: l.Fencing, Steps: len(l.Steps),
			URL: lessonURL(l.ID, 0, loc, false),
		})
	}
	p.Map = s.courseMap(t, loc)
	return p
}

func (s *Server) servePlayer(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	tl := s.lesson(r.Context(), id)
	l := tl.Lesson
	loc := s.negotiate(r)
	t := s.tr(loc)
	if l == nil {
		writePage(w, r, http.StatusNotFound, templates.NotFound(templates.NotFoundPage{
			UI: t.UI(), Lang: string(loc), Assets: assets(), ID: id, CourseURL: "/?lang=" + string(loc),
			Langs: langOptions(s.tr(loc), func(l sim.Locale) string {
				return "/lessons/" + url.PathEscape(id) + "?lang=" + string(l)
			}),
		}))
		return
	}
	q := r.URL.Query()
	step, presenter, notices := playerParams(t, q, len(l.Steps))
	r = r.WithContext(templates.WithNotices(r.Context(), notices...))
	p := templates.PlayerPage{
		UI: t.UI(), Lang: string(loc), Assets: assets(), LessonID: l.ID, Step: step, Total: len(l.Steps),
		Presenter: presenter,
		Title:     l.Title.In(loc) + " · " + t.UI().AppName,
		Header:    s.header(t, tl, "", step, presenter),
		Controls:  s.playerControls(t, l, step, DefaultSpeed),
		Steps:     view.PredictSteps(l),
		Panels:    s.prerender(r.Context(), t, tl, step),
	}
	writePage(w, r, http.StatusOK, templates.Player(p))
}

func (s *Server) serveMermaid(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="lock-states.mmd"`)
	_, _ = fmt.Fprint(w, sim.Mermaid(s.negotiate(r), s.translators.cat))
}

// serveWS upgrades to a websocket and starts the connection's reader, writer
// and session.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		http.Error(w, "web: server shutting down", http.StatusServiceUnavailable)
		return
	}
	bc := webnet.NewBatchConn(&s.batchBufs)
	conn, err := s.upgrader.Upgrade(bc.Hijacker(w), r, nil)
	if err != nil {
		// Upgrade has answered (403 for a foreign Origin, 400 otherwise).
		s.logf("web: websocket upgrade: %v", err)
		return
	}
	conn.EnableWriteCompression(webnet.CompressWrites(r))
	c := newClient(conn, s.cfg.ReadLimit)
	c.batch = bc
	c.deflate, c.wire = s.wire.deflates(conn, bc), s.wire.bytes
	c.addr, c.host, c.local, c.listenPort = s.clientAddr(r), r.Host, webnet.LocalPeer(r), webnet.ListenPort(r)
	c.limiter = rate.NewLimiter(rate.Limit(s.cfg.MessageRate), s.cfg.MessageBurst)
	c.fair = rate.NewLimiter(rate.Limit(s.cfg.FairRate), s.cfg.FairBurst)
	c.stop = s.ctx.Done()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.refuse(c, webnet.RefusedFull)
		return
	}
	slot, why := s.table.Add(c.addr)
	if why != webnet.Admitted {
		s.mu.Unlock()
		s.refuse(c, why)
		return
	}
	s.sessions.Add(1)
	s.mu.Unlock()
	go c.writePump()
	go c.readPump()
	go s.runSession(c, slot)
}

// refuse answers a connection over a session bound: an error message,
// then close code 1013 (try again later).
func (s *Server) refuse(c *client, why webnet.Refusal) {
	reason := fmt.Sprintf("web: too many sessions (limit %d); try again later", s.cfg.MaxSessions)
	text := reason
	if why == webnet.RefusedAddr {
		// A close reason has room for 123 bytes; the error message says more.
		reason = fmt.Sprintf("web: too many sessions from your address (limit %d, -max-sessions-per-addr)", s.cfg.MaxSessionsPerAddr)
		text = fmt.Sprintf("web: too many sessions from your address (limit %d per address, -max-sessions-per-addr); close another player tab or try again later", s.cfg.MaxSessionsPerAddr)
	}
	msg, _ := json.Marshal(ErrorMessage{Type: MsgError, Code: ErrCodeBusy, Message: text})
	_ = c.conn.SetWriteDeadline(time.Now().Add(writeWait))
	_ = c.conn.WriteMessage(websocket.TextMessage, msg)
	_ = c.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseTryAgainLater, reason))
	c.awaitClose()
	_ = c.conn.Close()
}

func floodReason(r rate.Limit) string {
	return fmt.Sprintf("web: too many messages (limit %g per second)", float64(r))
}

func tooBigReason(limit int64) string {
	return fmt.Sprintf("web: message too big (limit %d bytes)", limit)
}
