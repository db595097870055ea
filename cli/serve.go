package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"lockstep/backend"
	"lockstep/catalog"
	"lockstep/classserve"
	"lockstep/lessons"
	"lockstep/live"
	"lockstep/proxy"
	"lockstep/sim"
	"lockstep/templates"
	"lockstep/view"
	"lockstep/web"
)

// shutdownTimeout bounds a clean shutdown: sessions closed, runs' keys
// deleted, connections drained.
const shutdownTimeout = 10 * time.Second

// serveUsage is the usage of plain `lockstep`, with the commands' own.
const serveUsage = `usage: lockstep [-addr 127.0.0.1:8080] [-redis redis://HOST:PORT] [-redis-ca FILE] [-classroom-redis redis://HOST:PORT [-classroom-peers URL,...]] [-max-pairs N] [-max-sessions N] [-max-sessions-per-addr N] [-idle-timeout D] [-class-idle D] [-allowed-hosts H,...] [-allow-custom-scripts [-allow-custom-scripts-unconfined]] [-proxy 127.0.0.1:6380 [-proxy-locks GLOBS] [-proxy-max-clients N] [-proxy-slow-script D] [-proxy-trace-size N] [-max-live N]]
                [-trusted-proxies CIDR,...] [-session-reserve N] [-max-classes N] [-max-classes-per-addr N] [-class-grace D] [-classroom-secret S] [-search-max-states N] [-search-max-mib N] [-sandbox-kills-per-addr N] [-sandbox-time-per-addr D] [-sandbox-time-total D] [-script-time-per-addr D] [-script-time-total D]
       lockstep run FILE... [--redis URL] [--redis-ca FILE] [--allow-custom-scripts] [--json] [--lang L]
       lockstep lessons [--lang L]
       lockstep search FILE... [--redis URL] [--allow-custom-scripts] [--out DIR] [--json] [--lang L]
       lockstep doctor --redis URL [--redis-ca FILE] [--lang L] [--json]
       lockstep proxy [-listen 127.0.0.1:6380] [-redis URL] [-redis-ca FILE] [-locks GLOBS] [-scenario FILE] [-save DIR] [-trace-size N] [-max-clients N] [-slow-script D] [-json] [-lang L]`

// Serve runs the web player: `lockstep [-addr 127.0.0.1:8080] [-redis URL]
// [-max-sessions N] [-max-sessions-per-addr N] [-idle-timeout D] [-allowed-hosts H,...]`. It prints the URL, serves until ctx is done
// (Ctrl-C in main), then shuts down cleanly and returns the exit
// code.
func Serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("lockstep", stderr, usageLine(serveUsage))
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on; keep it on loopback unless you mean to share the player")
	redisURL := fs.redis("run the lessons on the real Redis at this redis:// URL instead of the embedded one (rediss:// for TLS; a Cluster node's URL finds the cluster)")
	redisCA := fs.redisCA()
	maxPairs := fs.Int("max-pairs", backend.DefaultMaxPairs, "most primary+replica redis-server pairs (two processes each) that failover lessons run at once on a -redis URL; the nodes of a Redlock lesson take one place")
	maxSessions := fs.Int("max-sessions", web.DefaultMaxSessions, "most player sessions (websocket connections) open at once")
	idle := fs.Duration("idle-timeout", web.DefaultIdleTimeout, "close a player session that sent nothing for this long")
	perAddr := fs.Int("max-sessions-per-addr", web.DefaultMaxSessionsPerAddr, "most player sessions open at once from one client address")
	classIdle := fs.Duration("class-idle", web.DefaultClassIdle, "end a class after this long without a move, a question, an answer or a join (its students get the end page); 1m to 24h")
	allowCustom := fs.Bool("allow-custom-scripts", false, "with -redis: run the Lua of learners' own locks (Explore: Your lock) on that Redis. This gives EVERY VISITOR ALL THE POWER OF THE REDIS USER: their scripts may read, write and delete any key and run any command that user may, and one that runs long is stopped only by SCRIPT KILL once Redis takes it (lua-time-limit). Lockstep refuses to start unless the user is confined to ~lockstep:* &lockstep:* (or -"+unconfinedFlag+" is given). Without this flag they run in a sandboxed embedded Redis of the server's own")
	scriptTime := fs.Duration("script-time-per-addr", backend.DefaultScriptTimePerAddr, "with -allow-custom-scripts: the time one client address's steps of learners' own scripts may take on that Redis within a minute; over it they are refused until it is a minute old, and an address runs one such step at once (negative: no bound)")
	scriptTotal := fs.Duration("script-time-total", backend.DefaultScriptTimeTotal, "with -allow-custom-scripts: the time the steps of learners' own scripts from all client addresses together may take on that Redis within a minute; over it they are refused until it is a minute old, and one address may take at most a quarter of it (negative: no bound)")
	unconfined := fs.Bool(unconfinedFlag, false, "with -allow-custom-scripts: start even though the Redis user may touch keys and channels outside Lockstep's; every visitor then has all that user may do")
	classRedis := fs.String("classroom-redis", "", "share classes with the other Lockstep servers that use the Redis at this redis:// URL (pub/sub and keys under lockstep:{class-CODE}:, see classbus.Redis; -redis-ca applies to it too); empty: classes live in this process")
	classPeers := fs.String("classroom-peers", "", "with -classroom-redis: comma-separated public base URLs (http:// or https://) of the other Lockstep servers sharing the classes; a student's page reconnects to them, in order, when this server is lost, and their pages may open this server's websocket")
	proxyAddr := fs.String("proxy", "", "also run the lock-aware Redis proxy (`lockstep proxy`) on this address, in front of the same Redis as the lessons (-redis, or an embedded one of its own); keep it on loopback")
	proxyFlags := fs.proxyFlags("proxy-")
	maxLive := fs.Int("max-live", live.DefaultMaxConns, "with -proxy: live pages (/live) open at once; one more is closed with code 1013")
	allowedHosts := fs.String("allowed-hosts", "", "comma-separated host names the server answers besides its own (e.g. a reverse proxy's public name); other Host headers get 421")
	lim := limitFlags(fs.FlagSet) // issue 37's bounds (serve_limits.go)
	if code, ok := fs.parseNoArgs(args, stderr, "lockstep: unknown command %q"); !ok {
		return code
	}
	// The proxy's flags mean nothing without -proxy: refused by name, so a
	// mistyped or forgotten -proxy is not silently ignored.
	if *proxyAddr == "" {
		var without string
		fs.Visit(func(f *flag.Flag) {
			if without == "" && (strings.HasPrefix(f.Name, "proxy-") || f.Name == "max-live") {
				without = f.Name
			}
		})
		if without != "" {
			fmt.Fprintf(stderr, "lockstep: flag -%s: needs -proxy ADDR (the proxy it configures)\n", without)
			return ExitInvalid
		}
	}
	// The limits that must be positive, each refused with its flag's name.
	for _, c := range []struct {
		flag, rule string
		bad        bool
	}{
		{"max-sessions", "must be at least 1", *maxSessions <= 0},
		{"max-sessions-per-addr", "must be at least 1", *perAddr <= 0},
		{"idle-timeout", "must be positive", *idle <= 0},
		{"max-pairs", "must be at least 1", *maxPairs <= 0},
		{"class-idle", "must be 1m to 24h", *classIdle < time.Minute || *classIdle > 24*time.Hour},
	} {
		if c.bad {
			fmt.Fprintf(stderr, "lockstep: flag -%s: %s\n", c.flag, c.rule)
			return ExitInvalid
		}
	}
	var hosts []string
	for _, h := range strings.Split(*allowedHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	limits, secret, err := lim.parse(*classRedis, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	peers, err := parsePeers(*classPeers, *classRedis)
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: flag -classroom-peers: %v\n", err)
		return ExitInvalid
	}
	course, err := lessons.All()
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	be, err := backend.Open(ctx, backend.Config{URL: *redisURL, CAFile: *redisCA, MaxPairs: *maxPairs, AllowCustomScripts: *allowCustom, ScriptTimePerAddr: *scriptTime, ScriptTimeTotal: *scriptTotal})
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	defer be.Close()
	if *allowCustom && *redisURL != "" {
		if err := checkCustomScripts(ctx, be, *redisURL, *classRedis, *redisCA, *unconfined); err != nil {
			fmt.Fprintf(stderr, "lockstep: %v\n", err)
			return ExitInvalid
		}
		fmt.Fprintf(stderr, "lockstep: warning: -allow-custom-scripts: every visitor's Lua runs on %s as Redis user %s, with all that user may do\n", be.Info().Addr, be.User())
	}
	bus, closeBus, err := openClassBus(ctx, *classRedis, *redisCA, secret)
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: flag -classroom-redis: %v\n", err)
		return ExitInvalid
	}
	defer closeBus()
	var liveHandler http.Handler
	var srv *web.Server // set below; the live page asks it for the request's language
	if *proxyAddr != "" {
		if *maxLive < 1 { // live.Config's 0 would mean its default
			fmt.Fprintf(stderr, "lockstep: flag -max-live: must be at least 1, not %d\n", *maxLive)
			return ExitInvalid
		}
		cfg, err := proxyFlags.config(*proxyAddr, *redisURL, *redisCA)
		if err != nil {
			fmt.Fprintf(stderr, "lockstep: %v\n", err)
			return ExitInvalid
		}
		p, err := proxy.Start(ctx, cfg)
		if err != nil {
			// Its errors name their flags (-proxy, -proxy-locks, ...).
			fmt.Fprintf(stderr, "lockstep: %v\n", err)
			return ExitInvalid
		}
		defer p.Close()
		fmt.Fprintf(stdout, "lockstep: Redis proxy on %s in front of %s: point your application at it\n", p.Addr(), p.Upstream())
		warnExposedProxy(stderr, p.Addr())
		cat, err := catalog.New()
		if err != nil {
			fmt.Fprintf(stderr, "lockstep: %v\n", err)
			return ExitInvalid
		}
		liveHandler = live.New(live.Config{Proxy: p, Catalog: cat, MaxConns: *maxLive, Locale: func(r *http.Request) sim.Locale { return srv.Locale(r) },
			Site: func(r *http.Request) (templates.Site, view.Texts) { return srv.LiveSite(r) }})
	}
	logger := log.New(stderr, "", log.LstdFlags)
	// Where students open a class: the port is -addr's until it is listened
	// on (only ":0" differs, and then a class shows the presenter's host).
	_, portText, _ := net.SplitHostPort(*addr)
	port, _ := strconv.Atoi(portText)
	var classURLs []string
	if port > 0 {
		classURLs = studentURLs(*addr, port, net.InterfaceAddrs)
	}
	srv, err = web.New(web.Config{Live: liveHandler,
		Backend: web.RedisBackend(be), Lessons: course, MaxSessions: *maxSessions, IdleTimeout: *idle, Logf: logger.Printf,
		MaxSessionsPerAddr: *perAddr, Addr: *addr, AllowedHosts: hosts, ClassURLs: classURLs, ClassBus: bus, ClassPeers: peers,
		AllowCustomScripts: *allowCustom, ClassIdle: *classIdle, Limits: limits, SearchMaxStates: *lim.searchStates, SearchMaxBytes: int64(*lim.searchMiB) << 20,
	})
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: listen: %v\n", err)
		_ = srv.Close(context.Background())
		return ExitInvalid
	}
	hs := httpServer(srv, logger)
	tcp := ln.Addr().(*net.TCPAddr)
	fmt.Fprintf(stdout, "lockstep: serving %d lessons on %s\n", len(course), be.Info())
	fmt.Fprintf(stdout, "lockstep: open %s  (Ctrl-C to stop)\n", browseURL(tcp))
	if liveHandler != nil {
		fmt.Fprintf(stdout, "lockstep: watch your application's locks at %s/live\n", strings.TrimSuffix(browseURL(tcp), "/"))
	}
	if !tcp.IP.IsLoopback() {
		// The address as the operator typed it (0.0.0.0 listens on [::] too,
		// which tcp would print), with the port listened on.
		host, _, _ := net.SplitHostPort(*addr)
		fmt.Fprintf(stderr, "lockstep: warning: listening on %s, which is reachable from other machines\n", net.JoinHostPort(host, strconv.Itoa(tcp.Port)))
		for _, u := range studentURLs(*addr, tcp.Port, net.InterfaceAddrs) {
			fmt.Fprintf(stdout, "lockstep: students open %s/class/CODE  (a class's code is on its presenter's page)\n", u)
		}
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	code := ExitOK
	select {
	case <-ctx.Done():
	case err := <-served:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "lockstep: serve: %v\n", err)
			code = ExitInvalid
		}
	}
	fmt.Fprintln(stdout, "lockstep: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// Stop taking requests first, then end the websocket sessions (which
	// Shutdown does not track) so each run's keys are deleted.
	shutErr := hs.Shutdown(sctx)
	if err := srv.Close(sctx); err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
	}
	if shutErr != nil && !errors.Is(shutErr, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "lockstep: shutdown: %v\n", shutErr)
	}
	fmt.Fprintln(stdout, "lockstep: stopped")
	return code
}

// parsePeers is -classroom-peers: its comma-separated base URLs, each
// checked by classserve.ParsePeer; peers without a -classroom-redis (classRedis
// empty) share no class and are refused.
func parsePeers(list, classRedis string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		o, err := classserve.ParsePeer(p)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	if len(out) > 0 && classRedis == "" {
		return nil, errors.New("needs -classroom-redis: servers share classes only through one Redis")
	}
	return out, nil
}

// Request timeouts of the server (hardening finding 7: 300 uploads
// sending a byte every 5 s were all still open after 65 s). A websocket is
// not bound by them: its handshake clears the deadlines, and its own
// pings and deadlines take over (package web).
const (
	readHeaderTimeout = 10 * time.Second
	// readTimeout bounds reading a whole request, body included; the
	// import handler sets a shorter deadline of its own for its body
	// (web.Config.BodyTimeout).
	readTimeout = 30 * time.Second
	idleTimeout = 2 * time.Minute
)

// httpServer is the http.Server that serves h, with the timeouts above.
func httpServer(h http.Handler, logger *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          logger,
	}
}

// browseURL is the address to open for a listener: an unspecified address
// (0.0.0.0, ::) is reached through loopback.
func browseURL(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(a.Port)) + "/"
}
