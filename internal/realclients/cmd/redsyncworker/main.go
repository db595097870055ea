// Command redsyncworker runs a realclients plan with redsync as a program,
// like the Node and Python workers: the plan as JSON in the first argument,
// one JSON event per line on stdout, one line on stdin per await step.
// Package realclients runs redsync in process; this is for driving it by
// hand or from another process:
//
//	go run ./internal/realclients/cmd/redsyncworker '{"addr":"127.0.0.1:6379","key":"lockstep:demo","lease_ms":2000,"name":"w1","steps":[{"do":"acquire"},{"do":"release"}]}'
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"

	"lockstep/internal/realclients"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: redsyncworker PLAN_JSON")
		os.Exit(2)
	}
	var plan realclients.Plan
	if err := json.Unmarshal([]byte(os.Args[1]), &plan); err != nil {
		fmt.Fprintf(os.Stderr, "redsyncworker: plan: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cont := make(chan struct{})
	go func() {
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			cont <- struct{}{}
		}
	}()
	enc := json.NewEncoder(os.Stdout)
	emit := func(e realclients.Event) {
		if err := enc.Encode(e); err != nil {
			fmt.Fprintf(os.Stderr, "redsyncworker: %v\n", err)
		}
	}
	if err := realclients.RunRedsync(ctx, plan, emit, cont); err != nil {
		fmt.Fprintf(os.Stderr, "redsyncworker: %v\n", err)
		os.Exit(1)
	}
}
