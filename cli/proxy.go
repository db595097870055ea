package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"lockstep/catalog"
	"lockstep/proxy"
	"lockstep/sim"
)

// proxyUsage is the usage of `lockstep proxy`.
const proxyUsage = `usage: lockstep proxy [-listen 127.0.0.1:6380] [-redis URL] [-redis-ca FILE] [-locks 'lock:*,order:*'] [-scenario FILE] [-save DIR] [-trace-size N] [-max-clients N] [-slow-script D] [-json] [-lang L]`

// proxyFlags are the flags of the proxy that `lockstep proxy` and the
// server's -proxy share.
type proxyFlags struct {
	prefix     string
	locks      *string
	traceSize  *int
	maxClients *int
	slowScript *time.Duration
}

func (f flags) proxyFlags(prefix string) proxyFlags {
	return proxyFlags{
		prefix:     prefix,
		locks:      f.String(prefix+"locks", "", "comma-separated globs of the lock keys (lock:*,order:*); empty: keys written by SET NX or by scripts that set a TTL on a KEYS element are taken for locks"),
		traceSize:  f.Int(prefix+"trace-size", proxy.DefaultTraceSize, fmt.Sprintf("events the proxy's trace keeps (about 1 KiB each; at most %d)", proxy.MaxTraceSize)),
		maxClients: f.Int(prefix+"max-clients", proxy.DefaultMaxClients, fmt.Sprintf("client connections the proxy holds at once (one upstream connection each; at most %d)", proxy.MaxMaxClients)),
		slowScript: f.Duration(prefix+"slow-script", proxy.DefaultSlowScript, "a script whose round trip takes longer is a finding"),
	}
}

// config is the proxy's configuration from the flags; a limit below 1 is
// refused by its flag's name (Config's zero would mean the default).
func (pf proxyFlags) config(listen, redisURL, redisCA string) (proxy.Config, error) {
	for _, l := range []struct {
		flag string
		v    int
	}{{"-" + pf.prefix + "trace-size", *pf.traceSize}, {"-" + pf.prefix + "max-clients", *pf.maxClients}} {
		if l.v < 1 {
			return proxy.Config{}, fmt.Errorf("flag %s: must be at least 1, not %d", l.flag, l.v)
		}
	}
	if *pf.slowScript <= 0 {
		return proxy.Config{}, fmt.Errorf("flag -%sslow-script: must be positive", pf.prefix)
	}
	return proxy.Config{Listen: listen, RedisURL: redisURL, RedisCA: redisCA, Locks: *pf.locks,
		TraceSize: *pf.traceSize, MaxClients: *pf.maxClients, SlowScript: *pf.slowScript, FlagPrefix: pf.prefix}, nil
}

// Proxy runs `lockstep proxy`: the lock-aware Redis proxy in front of the
// embedded Redis or -redis. It prints each finding and fault as it happens
// (text in --lang, or -json event lines), runs -scenario's faults, and at
// Ctrl-C saves the trace as a lesson and a variant file into -save DIR.
func Proxy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	stderr = newEscapeWriter(stderr)
	fs := newFlags("proxy", stderr, usageLine(proxyUsage))
	listen := fs.String("listen", proxy.DefaultListen, "address the proxy listens on; keep it on loopback: the proxy has no password of its own")
	redisURL := fs.redis("forward to the real Redis at this redis:// URL (rediss:// for TLS, user and password as ACL) instead of the embedded one; a Cluster is refused")
	redisCA := fs.redisCA()
	pf := fs.proxyFlags("")
	scenario := fs.String("scenario", "", "a scenario file of faults to inject (docs/proxy-scenario-format.md)")
	saveDir := fs.String("save", "", "at the end (Ctrl-C), save the trace as a lesson and a variant file into this folder")
	asJSON := fs.json("print every trace event as a JSON line instead of findings and faults as text")
	lang := fs.lang("language of the findings: en, zh-CN or zh-TW")
	if code, ok := fs.parseNoArgs(args, stderr, "lockstep proxy: unexpected argument %q"); !ok {
		return code
	}
	cat, loc, ok := language(*lang, stderr)
	if !ok {
		return ExitInvalid
	}
	var sc *proxy.Scenario
	if *scenario != "" {
		var err error
		if sc, err = proxy.LoadScenario(*scenario); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) { // not read at all: the flag names it
				fmt.Fprintf(stderr, "lockstep proxy: flag -scenario: %v\n", pe)
				return ExitInvalid
			}
			printLoadError(stderr, cat, loc, err)
			return ExitInvalid
		}
	}
	// The folder is made and tried now, not at Ctrl-C, when a refusal
	// would lose the whole session's trace.
	if *saveDir != "" {
		if err := checkSaveDir(*saveDir); err != nil {
			fmt.Fprintf(stderr, "lockstep proxy: flag -save: %v\n", err)
			return ExitInvalid
		}
	}
	cfg, err := pf.config(*listen, *redisURL, *redisCA)
	if err != nil {
		fmt.Fprintf(stderr, "lockstep proxy: %v\n", err)
		return ExitInvalid
	}
	// The proxy outlives ctx (Ctrl-C) until the trace is saved.
	p, err := proxy.Start(context.WithoutCancel(ctx), cfg)
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitInvalid
	}
	defer p.Close()
	if sc != nil {
		if err := p.CheckScenario(sc); err != nil {
			printLoadError(stderr, cat, loc, err)
			return ExitInvalid
		}
	}
	fmt.Fprintf(stdout, "lockstep: proxy on %s in front of %s (Ctrl-C to stop)\n", p.Addr(), p.Upstream())
	warnExposedProxy(stderr, p.Addr())
	sub := p.Subscribe(1024)
	defer sub.Close()
	if sc != nil {
		go p.RunScenario(ctx, sc)
	}
	out := newEscapeWriter(stdout)
	enc := json.NewEncoder(stdout)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case e := <-sub.C:
			if *asJSON {
				_ = enc.Encode(e)
			} else {
				printEvent(out, cat, loc, e)
			}
		}
	}
	if *saveDir == "" {
		return ExitOK
	}
	saved, err := p.SaveLesson(context.Background(), proxy.SaveOptions{Renderer: cat})
	if err != nil {
		fmt.Fprintf(stderr, "lockstep: %v\n", err)
		return ExitFailed
	}
	return writeSaved(*saveDir, saved, stdout, stderr)
}

// printEvent prints a finding or a fault for people.
func printEvent(w io.Writer, cat *catalog.Catalog, loc sim.Locale, e proxy.Event) {
	at := e.At.Format("15:04:05.000")
	switch {
	case e.Kind == proxy.EventFinding:
		fmt.Fprintf(w, "%s finding %s: %s\n", at, e.Finding.Code, cat.Render(loc, e.Finding.Message))
	case e.Kind == proxy.EventFault:
		fmt.Fprintf(w, "%s fault %s %s%s %s\n", at, e.Fault.Kind, e.Fault.Lane, e.Fault.Key, e.Error)
	case e.Kind == proxy.EventConnect || e.Kind == proxy.EventClient:
		fmt.Fprintf(w, "%s client %s %s %s %s\n", at, e.Lane, e.Client.Addr, e.Client.Name, e.Client.Library)
	case e.Kind == proxy.EventResync:
		fmt.Fprintf(w, "%s (some events were not printed: the terminal was slower than the traffic)\n", at)
	}
}

// checkSaveDir makes dir (and its parents) when missing and checks that a
// file can be written in it, by writing and removing one; the error says
// why not.
func checkSaveDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".lockstep-save-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// writeSaved writes a saved lesson and variant into dir.
func writeSaved(dir string, s proxy.Saved, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "lockstep: -save: %v\n", err)
		return ExitFailed
	}
	for _, f := range []struct {
		name string
		body []byte
	}{{s.LessonFile, s.Lesson}, {s.VariantFile, s.Variant}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.body, 0o644); err != nil {
			fmt.Fprintf(stderr, "lockstep: -save: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintf(stdout, "lockstep: saved %s\n", path)
	}
	for _, m := range s.Missing {
		fmt.Fprintf(stdout, "lockstep: missing: %s\n", m)
	}
	return ExitOK
}

// warnExposedProxy warns on stderr when the proxy at addr (host:port it
// listens on) is reachable from other machines: it has no password of its
// own, so anyone who reaches it reaches the Redis behind it.
func warnExposedProxy(stderr io.Writer, addr string) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return
	}
	fmt.Fprintf(stderr, "lockstep: warning: the proxy listens on %s, which is reachable from other machines; it has no password of its own, so anyone who reaches it reaches the Redis behind it\n", addr)
}
