// Command lockstep is an interactive teaching simulator for reentrant
// distributed locks on Redis.
//
//	lockstep [-addr 127.0.0.1:8080] [-redis URL] [-proxy ADDR]   serve the web player (and the Redis proxy)
//	lockstep run FILE... [--redis URL] [--redis-ca FILE] [--allow-custom-scripts] [--json] [--lang L]
//	lockstep lessons [--lang L]
//	lockstep doctor --redis URL [--redis-ca FILE] [--lang L] [--json]
//	lockstep search FILE... [--redis URL] [--allow-custom-scripts] [--out DIR] [--json] [--lang L]
//	lockstep proxy [-listen 127.0.0.1:6380] [-redis URL] [-locks GLOBS] [-scenario FILE] [-save DIR]
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"lockstep/backend"
	"lockstep/cli"
)

func main() {
	// The Lua sandbox's child process (backend.Sandbox) is this binary.
	backend.RunSandboxIfChild()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		// The first Ctrl-C ends the command cleanly (a run's keys are
		// deleted); from then on the default handling is back, so a
		// second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	args := os.Args[1:]
	code := 0
	switch {
	case len(args) > 0 && args[0] == "run":
		code = cli.Run(ctx, args[1:], os.Stdout, os.Stderr)
	case len(args) > 0 && args[0] == "search":
		code = cli.Search(ctx, args[1:], os.Stdout, os.Stderr)
	case len(args) > 0 && args[0] == "lessons":
		code = cli.Lessons(args[1:], os.Stdout, os.Stderr)
	case len(args) > 0 && args[0] == "proxy":
		code = cli.Proxy(ctx, args[1:], os.Stdout, os.Stderr)
	case len(args) > 0 && args[0] == "doctor":
		code = cli.Doctor(ctx, args[1:], os.Stdout, os.Stderr)
	default:
		code = cli.Serve(ctx, args, os.Stdout, os.Stderr)
	}
	os.Exit(code)
}
